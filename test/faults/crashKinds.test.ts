import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadSqlJs, openInPlace, queryAll } from '../../src/core/index/sqlite';
import { readState } from '../../src/core/format/sessionState';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { Checkpoints } from '../../src/core/tools/checkpoints';
import { BlobStore } from '../../src/core/format/blobStore';
import { parseRecordLine, type FileChangeRecord } from '../../src/core/wire/records';
import { replay } from '../../src/core/wire/replay';
import { readWireLog } from '../../src/core/wire/wireReader';
import { assertIndexAgrees, doctorFinds, KillWindow, runUntilKilled, trials } from '../support/faults';
import { quarantined } from '../support/quarantine';
import { assistantMessage, openStore, tempDir, userMessage, wasmPath } from '../support/store';

// A child repeats one kind of operation (state writes, index saves, rewinds with files, trash and
// restore) and is killed with SIGKILL at a random moment, many times per kind. After every kill
// what the child had reported durable is there, nothing half-done is visible, and at the end
// `braid doctor` finds no loss and, after `--fix`, nothing left to repair; the index agrees with disk.
const TRIALS = trials('BRAID_CRASH_TRIALS', 40, 300);
const roots: string[] = [];
after(() => roots.forEach((r) => fs.rmSync(r, { recursive: true, force: true })));

async function fresh(prefix: string): Promise<{ root: string; store: SessionStore }> {
  const root = tempDir(prefix);
  roots.push(root);
  return { root, store: await openStore(root) };
}

const delay = () => Math.random() * 30;

test(`${TRIALS} SIGKILLs during state writes: state.json is always whole and never older than what was reported`, async () => {
  const { root, store } = await fresh('braid-crash-state-');
  const session = await store.create({ workspaceDir: '/state-crash' });
  const stateFile = path.join(store.locate(session.id), 'state.json');
  await store.close();
  let title = session.title;
  let archived = false;
  for (let i = 0; i < TRIALS; i++) {
    // Each run numbers its titles from 1; a toggle of `archived` follows every third title.
    let titled = 0;
    let toggling = false;
    for (const line of await runUntilKilled('faultWorker', [root, 'state', session.id, wasmPath], delay())) {
      const [word, value] = line.split(' ');
      if (word === 'titled') {
        titled = Number(value);
        toggling = titled % 3 === 0;
      } else if (word === 'archived') {
        archived = value === 'true';
        toggling = false;
      }
    }
    const state = readState(stateFile); // throws on a half-written file
    // The last title reported is there, or the next one, which was under way.
    const allowed = titled === 0 ? [title, 'title 1'] : [`title ${titled}`, `title ${titled + 1}`];
    assert.ok(allowed.includes(state.title), `after kill ${i + 1}: title "${state.title}", expected one of ${allowed.join(', ')}`);
    if (!toggling) assert.equal(state.archived, archived, `after kill ${i + 1}: archived`);
    title = state.title;
    archived = state.archived;
  }
  assert.deepEqual((await doctorFinds(root)).left, []);
  await assertIndexAgrees(root);
});

test(`${TRIALS} SIGKILLs during index writes: each workspace's index.sqlite, opened as SQLite opens it (a hot journal rolled back), is whole and has every session written before`, async () => {
  const { root, store } = await fresh('braid-crash-index-');
  await store.close();
  const SQL = await loadSqlJs(wasmPath);
  const saved = new Set<string>();
  for (let i = 0; i < TRIALS; i++) {
    for (const line of await runUntilKilled('faultWorker', [root, 'index', '-', wasmPath], delay())) if (line.startsWith('saved ')) saved.add(line.slice(6));
    const rows = new Set<string>();
    for (const file of workspaceIndexFiles(root)) {
      const db = openInPlace(SQL, file);
      assert.deepEqual(db.exec('PRAGMA quick_check')[0]?.values, [['ok']], `after kill ${i + 1}: ${file} is damaged`);
      for (const r of queryAll<{ id: string }>(db, 'SELECT id FROM sessions')) rows.add(r.id);
      db.close();
    }
    const missing = [...saved].filter((id) => !rows.has(id));
    assert.deepEqual(missing, [], `after kill ${i + 1}: sessions reported saved are missing from their workspace's index.sqlite`);
  }
  assert.deepEqual((await doctorFinds(root)).left, []);
  const temps = workspaceFolders(root).flatMap((dir) => fs.readdirSync(dir).filter((n) => n.includes('.tmp-')));
  assert.deepEqual(temps, [], 'temp files of interrupted saves are swept');
  await assertIndexAgrees(root);
});

test(`${TRIALS} SIGKILLs during doctor --fix repairs of unreadable lines: the log is always whole, and every damaged line is in it or in its quarantine file`, async () => {
  const { root, store } = await fresh('braid-crash-quarantine-');
  const session = await store.create({ workspaceDir: '/quarantine-crash' });
  const log = store.layout.agentLog(store.locate(session.id));
  await store.close();
  const turned = new Set<string>();
  const damaged = new Set<string>();
  const keptLines = () => new Set([...fs.readFileSync(log, 'utf8').split('\n'), ...quarantined(log).map((e) => e.text)]);
  for (let i = 0; i < TRIALS; i++) {
    for (const line of await runUntilKilled('faultWorker', [root, 'quarantine', session.id, wasmPath], Math.random() * 150)) {
      if (line.startsWith('turned ')) turned.add(line.slice(7));
      if (line.startsWith('damaged ')) damaged.add(line.slice(8));
    }
    // The old log or the new one, never a mix: each line is a record, a damaged line, or the start
    // of a record an append killed part-way cut short (the next run's first append follows it).
    const lines = fs.readFileSync(log, 'utf8').split('\n');
    const stray = lines.filter((l) => l && !l.startsWith('junk ') && !l.startsWith('{"v":1,"t":"') && 'bad' in parseRecordLine(l));
    assert.deepEqual(stray, [], `after kill ${i + 1}: lines of no record in the log`);
    const prompts = new Set(replay(readWireLog(log).records).messages.map((m) => (m.message.role === 'user' ? m.message.content : '')));
    assert.deepEqual(
      [...turned].filter((p) => !prompts.has(p)),
      [],
      `after kill ${i + 1}: turns reported are missing`,
    );
    const kept = keptLines();
    assert.deepEqual(
      [...damaged].filter((d) => !kept.has(d)),
      [],
      `after kill ${i + 1}: damaged lines lost`,
    );
  }
  assert.deepEqual((await doctorFinds(root)).left, []);
  assert.equal(readWireLog(log).report.badLines, 0);
  const kept = keptLines();
  assert.deepEqual(
    [...damaged].filter((d) => !kept.has(d)),
    [],
  );
  assert.deepEqual(
    fs.readdirSync(path.dirname(log)).filter((n) => n.includes('.tmp-')),
    [],
    'temp files of interrupted repairs are swept',
  );
});

/** The store's workspace folders (sessions/<workspace key>). */
function workspaceFolders(root: string): string[] {
  const sessions = path.join(root, 'sessions');
  return fs.existsSync(sessions) ? fs.readdirSync(sessions).map((key) => path.join(sessions, key)) : [];
}

/** Every workspace's index file that exists. */
function workspaceIndexFiles(root: string): string[] {
  return workspaceFolders(root)
    .map((dir) => path.join(dir, 'index.sqlite'))
    .filter((file) => fs.existsSync(file));
}

/** A file's bytes as a blob hash, or null when it does not exist. */
function hashOf(file: string): string | null {
  return fs.existsSync(file) ? createHash('sha256').update(fs.readFileSync(file)).digest('hex') : null;
}

/**
 * What the workspace must hold for a session's effective history: for each path it ever changed,
 * the image after its last effective change, or the image before its first change when every
 * change to it was rewound.
 */
function expectedFiles(log: string): Map<string, string | null> {
  const { records } = readWireLog(log);
  const first = new Map<string, string | null>();
  for (const r of records)
    if (r.t === 'file_change' && !first.has((r as FileChangeRecord).path)) first.set((r as FileChangeRecord).path, (r as FileChangeRecord).before);
  const expected = new Map(first);
  for (const c of replay(records).fileChanges) expected.set(c.path, c.after);
  return expected;
}

test(`${TRIALS} SIGKILLs during rewinds with files and their undo: the workspace always matches the conversation once the session is opened again`, async (t) => {
  const { root, store } = await fresh('braid-crash-rewind-');
  const workspace = tempDir('braid-crash-rewind-ws-');
  roots.push(workspace);
  const session = await store.create({ workspaceDir: workspace });
  const dir = store.locate(session.id);
  const writer = await store.openWriter(session.id);
  const checkpoints = new Checkpoints(new BlobStore(store.layout.blobsDir(dir)), async (r) => void (await writer.append(r as never, true)));
  const files = ['a.txt', 'b.txt', 'src/c.txt', 'src/deep/d.txt'];
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'original a\n');
  for (let turn = 1; turn <= 5; turn++) {
    const t = await writer.beginTurn(`p${turn}`, null);
    await writer.appendMessage(userMessage(`change files, turn ${turn}`));
    checkpoints.beginTurn(t);
    for (const [k, rel] of files.entries()) {
      if ((turn + k) % 3 === 0) continue;
      const full = path.join(workspace, rel);
      checkpoints.captureBefore(full, fs.existsSync(full) ? fs.readFileSync(full) : null);
      if (turn === 4 && k === 1) fs.rmSync(full, { force: true });
      else {
        fs.mkdirSync(path.dirname(full), { recursive: true });
        fs.writeFileSync(full, `${rel} at turn ${turn}\n${'x'.repeat(turn * 1000)}\n`);
      }
      await checkpoints.recordWrite(
        full,
        { root: fs.realpathSync(workspace), relative: rel },
        `call-${turn}-${k}`,
        fs.existsSync(full) ? fs.readFileSync(full) : null,
      );
    }
    await writer.appendMessage(assistantMessage(`changed files in turn ${turn}`));
    await writer.endTurn('completed');
  }
  await writer.close();
  await store.close();
  const log = path.join(dir, 'agents', 'main', 'wire.jsonl');
  const check = (when: string) => {
    for (const [rel, hash] of expectedFiles(log)) assert.equal(hashOf(path.join(workspace, rel)), hash, `${when}: ${rel} does not match the conversation`);
  };
  check('before any kill');
  let rewinds = 0;
  const window = new KillWindow(200);
  for (let i = 0; i < TRIALS; i++) {
    const done = (await runUntilKilled('faultWorker', [root, 'rewind', session.id, wasmPath], window.next())).filter(
      (l) => l === 'rewound' || l === 'undone',
    ).length;
    window.finished(done);
    rewinds += done;
    // Opening the session again (as the next window or CLI run does) finishes what the kill cut short.
    const reopened = await openStore(root);
    await (await reopened.openWriter(session.id)).close();
    await reopened.close();
    check(`after kill ${i + 1}`);
    const history = replay(readWireLog(log).records);
    assert.equal(history.openTurn, null);
    assert.ok(history.turnEnds.length >= 1, 'the first turn is never rewound');
  }
  t.diagnostic(`rewinds and undos completed between the kills: ${rewinds}`);
  assert.ok(rewinds > 0, 'rewinds and undos completed between the kills');
  assert.deepEqual((await doctorFinds(root)).left, []);
  await assertIndexAgrees(root);
});

test(`${TRIALS} SIGKILLs during trash and restore: the session is always in exactly one place and whole`, async () => {
  const { root, store } = await fresh('braid-crash-trash-');
  const session = await store.create({ workspaceDir: '/trash-crash' });
  const writer = await store.openWriter(session.id);
  for (let turn = 1; turn <= 3; turn++) {
    await writer.beginTurn(`p${turn}`, null);
    await writer.appendMessage(userMessage(`prompt ${turn}`));
    await writer.appendMessage(assistantMessage(`answer ${turn}`));
    await writer.endTurn('completed');
  }
  await writer.close();
  const live = store.locate(session.id);
  const trashed = store.layout.trashedSessionDir(session.workspaceKey, session.id);
  await store.close();
  let moves = 0;
  const window = new KillWindow(30);
  for (let i = 0; i < TRIALS; i++) {
    const done = (await runUntilKilled('faultWorker', [root, 'trash', session.id, wasmPath], window.next())).filter(
      (l) => l === 'deleted' || l === 'undeleted',
    ).length;
    window.finished(done);
    moves += done;
    const places = [live, trashed].filter((d) => fs.existsSync(d));
    assert.equal(places.length, 1, `after kill ${i + 1}: the session is in ${places.length} places`);
    const history = replay(readWireLog(path.join(places[0]!, 'agents', 'main', 'wire.jsonl')).records);
    assert.equal(history.turnEnds.filter((e) => e.outcome === 'completed').length, 3, `after kill ${i + 1}: every turn is there`);
    readState(path.join(places[0]!, 'state.json'));
    if (places[0] === trashed) {
      // The user brings it back from the trash, as the tree or `braid restore` would.
      const again = await openStore(root);
      await again.undelete(session.id);
      await again.close();
    }
  }
  assert.ok(moves > 0, 'moves completed between the kills');
  assert.deepEqual((await doctorFinds(root)).left, []);
  await assertIndexAgrees(root);
});
