import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { readSessionFolder } from '../../../src/core/format/summary';
import { readFolderSummary } from '../../../src/core/index/indexFolders';
import { TRASH_RETENTION_MS } from '../../../src/core/store/sessionStore';
import { SessionNotFoundError } from '../../../src/core/store/errors';
import { FileLock } from '../../../src/core/fs/fileLock';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { addTurn, openStore, recordingLogger, tempRoots } from '../../support/store';

const { root, cleanup } = tempRoots();
after(cleanup);

test('create lays out state.json and the main log under sessions/<workspaceKey>/<id>', async () => {
  const r = root();
  const store = await openStore(r);
  const s = await store.create({ workspaceDir: '/work/app' });
  const dir = path.join(r, 'sessions', workspaceKey('/work/app'), s.id);
  const state = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'));
  assert.equal(state.v, 2);
  assert.equal(state.id, s.id);
  assert.equal(state.workspaceKey, workspaceKey('/work/app'));
  // Version 2 keeps only what the user owns; status, turns, usage and model are the log's to say.
  for (const derived of ['status', 'error', 'turnCount', 'usage', 'model', 'updatedAt', 'agents']) assert.equal(derived in state, false, derived);
  assert.equal(s.status, 'idle');
  const first = JSON.parse(fs.readFileSync(path.join(dir, 'agents', 'main', 'wire.jsonl'), 'utf8').split('\n')[0]!);
  assert.equal(first.t, 'agent');
  assert.equal(first.agentId, 'main');
  assert.equal(fs.readdirSync(dir).filter((f) => f.includes('.tmp-')).length, 0, 'no temp files left');
  await store.close();
});

test('turns update state (count, status, usage, auto title) and the index row', async () => {
  const store = await openStore(root());
  const s = await store.create({ workspaceDir: '/w' });
  const writer = await store.openWriter(s.id);
  await addTurn(writer, '  Refactor   the parser\nplease, with tests for every edge case we know about today', 'ok');
  await addTurn(writer, 'second', 'done');
  await writer.close();
  const state = store.get(s.id);
  assert.equal(state.turnCount, 2);
  assert.equal(state.status, 'idle');
  assert.equal(state.title, 'Refactor the parser please, with tests for every…', 'cut at a word boundary, with an ellipsis');
  assert.equal(state.usage.input, 20);
  const row = store.index.get(s.id)!;
  assert.equal(row.turnCount, 2);
  assert.equal(row.messageCount, 4);
  assert.equal(row.lastPreview, 'done');
  assert.equal(store.index.search('parser', { workspaceKey: workspaceKey('/w') })[0]?.id, s.id);
  assert.equal(store.index.search('second', {}).length, 1);
  assert.equal(store.index.search('nothing-like-this', {}).length, 0);
  await store.close();
});

test('continue latest finds the newest visible, unarchived session of that workspace, even when other workspaces are busier', async () => {
  const store = await openStore(root());
  const mine = await store.create({ workspaceDir: '/mine' });
  const newer = await store.create({ workspaceDir: '/mine' });
  for (let i = 0; i < 60; i++) await store.create({ workspaceDir: '/theirs' });
  assert.equal(store.continueLatest('/mine')?.id, newer.id);
  await store.archive(newer.id);
  assert.equal(store.continueLatest('/mine')?.id, mine.id);
  assert.equal(store.continueLatest('/nobody'), undefined);
  await store.close();
});

test('rename, archive, and opening an archived session restores it', async () => {
  const store = await openStore(root());
  const s = await store.create({ workspaceDir: '/w' });
  await store.rename(s.id, '  My   session ');
  assert.equal(store.get(s.id).title, 'My session');
  assert.equal(store.get(s.id).titleSource, 'user');
  await assert.rejects(store.rename(s.id, '   '), /cannot be empty/);
  await store.archive(s.id);
  assert.equal(store.index.list({ workspaceKey: workspaceKey('/w') }).length, 0);
  assert.equal(store.index.list({ workspaceKey: workspaceKey('/w'), archived: true })[0]?.id, s.id);
  const opened = await store.restore(s.id);
  assert.equal(opened.archived, false);
  assert.equal(store.index.list({ workspaceKey: workspaceKey('/w') })[0]?.id, s.id);
  await store.close();
});

test('delete moves to the trash; undelete brings it back; purge removes trash older than 7 days', async () => {
  const r = root();
  const store = await openStore(r);
  const s = await store.create({ workspaceDir: '/w' });
  const writer = await store.openWriter(s.id);
  await addTurn(writer, 'remember me', 'ok');
  await writer.close();
  await store.delete(s.id);
  assert.throws(() => store.get(s.id), SessionNotFoundError);
  assert.equal(store.index.get(s.id), undefined);
  assert.equal(store.listTrash()[0]?.id, s.id);
  await store.undelete(s.id);
  assert.equal(store.history(s.id).messages.length, 2);
  assert.equal(store.index.get(s.id)?.turnCount, 1);
  await store.delete(s.id);
  assert.deepEqual(store.purgeTrash(Date.now() + TRASH_RETENTION_MS - 60_000), []);
  assert.deepEqual(store.purgeTrash(Date.now() + TRASH_RETENTION_MS + 1), [s.id]);
  assert.equal(fs.existsSync(path.join(r, 'trash', workspaceKey('/w'), s.id)), false);
  await store.close();
});

test('export as Markdown and JSONL', async () => {
  const store = await openStore(root());
  const s = await store.create({ workspaceDir: '/w', title: 'Export me' });
  const writer = await store.openWriter(s.id);
  await addTurn(writer, 'What is ```code```?', 'Answer.');
  await writer.close();
  const md = store.export(s.id, 'md');
  assert.match(md, /^# Export me/);
  assert.match(md, /### User\n\nWhat is ```code```\?/);
  assert.match(md, /### Assistant\n\nAnswer\./);
  const jsonl = store
    .export(s.id, 'jsonl')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    jsonl.map((r) => r.t),
    ['agent', 'turn_begin', 'message', 'message', 'usage', 'turn_end'],
  );
  await store.close();
});

test('a missing, empty or truncated state.json is rebuilt from the log, and the broken file kept', async () => {
  for (const damage of ['missing', 'empty', 'truncated'] as const) {
    const logger = recordingLogger();
    const store = await openStore(root(), { logger });
    const s = await store.create({ workspaceDir: '/w' });
    const writer = await store.openWriter(s.id);
    await addTurn(writer, 'the first prompt', 'ok');
    await addTurn(writer, 'the second prompt', 'ok');
    await writer.close();
    const stateFile = path.join(store.layout.sessionDir(workspaceKey('/w'), s.id), 'state.json');
    if (damage === 'missing') fs.rmSync(stateFile);
    else if (damage === 'empty') fs.writeFileSync(stateFile, '');
    else fs.writeFileSync(stateFile, fs.readFileSync(stateFile, 'utf8').slice(0, 40));
    const state = store.get(s.id);
    assert.equal(state.id, s.id, damage);
    assert.equal(state.turnCount, 2);
    assert.equal(state.title, 'the first prompt');
    assert.equal(state.workspaceDir, '/w');
    assert.ok(
      logger.warnings.some((w) => w.includes('rebuilt')),
      damage,
    );
    assert.equal(JSON.parse(fs.readFileSync(stateFile, 'utf8')).id, s.id, 'written back');
    if (damage !== 'missing') assert.ok(fs.readdirSync(path.dirname(stateFile)).some((f) => f.startsWith('state.json.broken-')));
    await store.close();
  }
});

test('a session folder deleted behind our back gives a clear error and leaves the index', async () => {
  const store = await openStore(root());
  const s = await store.create({ workspaceDir: '/w' });
  fs.rmSync(store.layout.sessionDir(workspaceKey('/w'), s.id), { recursive: true });
  assert.throws(() => store.get(s.id), /session ses_\w+ does not exist/);
  assert.equal(store.index.get(s.id), undefined);
  assert.equal(store.continueLatest('/w'), undefined);
  assert.throws(() => store.get('../../etc/passwd'), /not a session id/);
  await store.close();
});

test('a session whose folder another process removes while it is read is not found, never repaired into a new folder', async () => {
  const logger = recordingLogger();
  const store = await openStore(root(), { logger });
  const s = await store.create({ workspaceDir: '/gone' });
  const dir = store.locate(s.id);
  const reading = readSessionFolder(dir);
  fs.rmSync(dir, { recursive: true }); // moved to the trash by another process, between the read and the repair
  assert.throws(
    () => store.repairState(dir, reading),
    (err: Error) => err instanceof SessionNotFoundError && /deleted or moved by another process just now/.test(err.message),
  );
  assert.equal(fs.existsSync(dir), false, 'no folder made again');
  assert.deepEqual(logger.warnings, [], 'no repair reported');
  await store.close();
});

test('a change waiting for the state lock while another process moves the folder away is "not found", never a raw ENOENT', async () => {
  const store = await openStore(root());
  const s = await store.create({ workspaceDir: '/race' });
  const dir = store.locate(s.id);
  const held = await FileLock.acquire(store.layout.stateLock(dir), { staleMs: 60_000, timeoutMs: 1000 });
  const forActions = [store.rename(s.id, 'late'), store.archive(s.id), store.openWriter(s.id)];
  for (const pending of forActions) pending.catch(() => undefined); // judged below
  await new Promise((resolve) => setTimeout(resolve, 30)); // all of them are waiting for the lock now
  fs.renameSync(dir, path.join(root(), 'elsewhere')); // the other process's delete, lock file and all
  held.release();
  for (const pending of forActions)
    await assert.rejects(pending, (err: Error) => err instanceof SessionNotFoundError && /deleted or moved by another process just now/.test(err.message));
  await store.close();
});

test('rename and delete racing each other: the rename lands before the move or is "not found"; the trash holds no lock files', async () => {
  const store = await openStore(root());
  const other = await openStore(store.layout.root); // a second process on the same store
  for (let round = 0; round < 20; round++) {
    const s = await store.create({ workspaceDir: '/race' });
    const [renamed, deleted] = await Promise.allSettled([other.rename(s.id, `renamed ${round}`), store.delete(s.id)]);
    assert.equal(deleted.status, 'fulfilled', String((deleted as PromiseRejectedResult).reason));
    if (renamed.status === 'rejected') assert.ok(renamed.reason instanceof SessionNotFoundError, String(renamed.reason));
    const trashed = store.layout.trashedSessionDir(workspaceKey('/race'), s.id);
    assert.deepEqual(
      fs.readdirSync(trashed).filter((name) => name.endsWith('.lock')),
      [],
      'no lock travelled into the trash',
    );
    const title = JSON.parse(fs.readFileSync(store.layout.stateFile(trashed), 'utf8')).title;
    if (renamed.status === 'fulfilled') assert.equal(title, `renamed ${round}`, 'a rename that succeeded is in the trashed copy');
  }
  await other.close();
  await store.close();
});

test('the index reading a folder that another process moves away meanwhile reports no damage and indexes nothing', async () => {
  const logger = recordingLogger();
  const store = await openStore(root(), { logger });
  const s = await store.create({ workspaceDir: '/moved' });
  const dir = store.locate(s.id);
  fs.rmSync(dir, { recursive: true }); // gone between the folder listing and the read
  assert.equal(readFolderSummary(dir, logger), undefined);
  assert.deepEqual(logger.warnings, [], 'a missing state.json of a vanished folder is no damage to report');
  // A folder that is there without its state.json is damage: it is said, and its row rebuilt from the log.
  const kept = await store.create({ workspaceDir: '/moved' });
  const keptDir = store.locate(kept.id);
  fs.rmSync(path.join(keptDir, 'state.json'));
  assert.equal(readFolderSummary(keptDir, logger)?.state.id, kept.id);
  assert.match(logger.warnings.join('\n'), /state\.json is missing.*rebuilt from the log/);
  await store.close();
});
