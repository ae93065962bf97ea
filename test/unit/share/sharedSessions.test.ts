import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runDoctor } from '../../../src/core/store/doctor';
import { forkSession } from '../../../src/core/store/fork';
import type { Session } from '../../../src/core/session/session';
import { relinkSessions } from '../../../src/core/store/relink';
import { previewRewind, rewindSession, undoRewind } from '../../../src/core/store/rewind';
import { isPromptRecord, type ForkedRecord, type MessageRecord } from '../../../src/core/wire/records';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { fauxAssistantMessage, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';
import { machineASession, pulledCopy, TEST_ORIGIN } from '../../support/sharedSession';

// A session pulled from a git remote (state.json `shared`) is read-only here, and its forks are
// this machine's sessions whose pulled turns never touch this machine's files: the other machine
// made their file changes, and the files here only share their paths.
const READ_ONLY = `This session was pulled from ${TEST_ORIGIN.remote} (Ada on ada-laptop); it is read-only here. Fork it to continue.`;

/** Machine A: a session whose first turn creates src/new.ts and whose second rewrites src/a.ts. */
let a: SessionFixture;
let sharedId: string;
const fixtures: SessionFixture[] = [];

before(async () => {
  ({ a, id: sharedId } = await machineASession());
  assert.equal(a.records(sharedId).filter((r) => r.t === 'file_change').length, 2, 'machine A recorded both writes');
});

after(async () => {
  for (const f of [a, ...fixtures]) await f.cleanup();
});

/**
 * Machine B: its workspace holds the files as git brought them (the same content machine A's
 * turns left), and its store the pulled copy of machine A's session.
 */
async function machineB(): Promise<SessionFixture> {
  const b = await sessionFixture({ 'src/a.ts': 'two\n', 'src/new.ts': 'created there\n' });
  fixtures.push(b);
  b.store.index.rereadFolder(pulledCopy(a.store, sharedId, b.root + '/store', b.workspace));
  return b;
}

const files = (b: SessionFixture) => ({
  a: fs.readFileSync(path.join(b.workspace, 'src/a.ts'), 'utf8'),
  new: fs.existsSync(path.join(b.workspace, 'src/new.ts')) ? fs.readFileSync(path.join(b.workspace, 'src/new.ts'), 'utf8') : null,
});
const THERE = { a: 'two\n', new: 'created there\n' };

/** The prompt that began turn `turn` of a session. */
function promptOf(b: SessionFixture, id: string, turn: number): MessageRecord {
  return b.store.history(id).messages.find((m) => m.turn === turn && isPromptRecord(m))!;
}

/** Opens session `id` on machine B and runs a turn there that writes local.txt; returns the open session. */
async function localTurn(b: SessionFixture, id: string): Promise<Session> {
  b.faux.setResponses([
    fauxAssistantMessage(fauxToolCall('write_file', { path: 'local.txt', content: 'mine\n' }, { id: 'w3' }), { stopReason: 'toolUse' }),
    fauxAssistantMessage('Wrote mine.'),
  ]);
  const session = await b.open({}, id);
  await session.submit('write local.txt');
  await session.waitForIdle();
  return session;
}

const logBytes = (b: SessionFixture, id: string) => fs.statSync(b.store.layout.agentLog(b.store.locate(id))).size;

test('a pulled session is read-only: its writer, a turn, a rewind, its preview and an undo are refused, saying where it came from', async () => {
  const b = await machineB();
  const before = logBytes(b, sharedId);
  const refused = { name: 'SharedSessionError', message: READ_ONLY };
  await assert.rejects(b.store.openWriter(sharedId), refused);
  await assert.rejects(b.open({}, sharedId), refused);
  assert.throws(() => previewRewind(b.store, sharedId, promptOf(b, sharedId, 1).id), refused);
  await assert.rejects(rewindSession(b.store, sharedId, promptOf(b, sharedId, 1).id, { files: true }), refused);
  await assert.rejects(undoRewind(b.store, sharedId), refused);
  assert.equal(logBytes(b, sharedId), before, 'nothing was appended');
  assert.equal(fs.existsSync(b.store.layout.writerLock(b.store.locate(sharedId))), false, 'no lease was left behind');
  assert.deepEqual(files(b), THERE);
  // Crash recovery at a window's start leaves it too.
  assert.deepEqual(await b.store.recoverInterrupted(b.workspace), []);
});

test('renaming, archiving and deleting a pulled session are changes of this machine and allowed; a relink leaves it where it was', async () => {
  const b = await machineB();
  assert.equal((await b.store.rename(sharedId, 'Ada on the parser')).title, 'Ada on the parser');
  assert.equal((await b.store.archive(sharedId)).archived, true);
  assert.deepEqual((await b.store.restore(sharedId)).shared, TEST_ORIGIN, 'state changes keep where it came from');
  // The folder moved: this machine's sessions follow it, the pulled copy stays (a pull brings it there).
  const own = await b.store.create({ workspaceDir: b.workspace });
  const moved = `${b.workspace}-moved`;
  fs.renameSync(b.workspace, moved);
  const relinked = await relinkSessions(b.store, b.workspace, moved);
  assert.deepEqual(relinked.moved, [own.id]);
  assert.equal(b.store.get(sharedId).workspaceKey, workspaceKey(b.workspace));
  await b.store.delete(sharedId);
  assert.deepEqual(
    b.store.listTrash().map((t) => t.id),
    [sharedId],
  );
});

test('a fork of a pulled session is writable, and a rewind across the pulled turns rewinds their conversation only', async () => {
  const b = await machineB();
  const fork = await forkSession(b.store, sharedId);
  assert.equal(fork.shared, undefined);
  assert.deepEqual(fork.forkedFrom, { sessionId: sharedId, turn: null });
  const mark = b.records(fork.id).at(-1) as ForkedRecord;
  assert.deepEqual([mark.t, mark.pulled], ['forked', true], 'the fork marks the records it copied as pulled');

  const session = await localTurn(b, fork.id);
  assert.deepEqual(
    session.changes().session.map((c) => c.path),
    ['local.txt'],
    'the Changes list holds this machine’s change only',
  );

  const preview = previewRewind(b.store, fork.id, promptOf(b, fork.id, 1).id);
  assert.deepEqual([preview.turnsDropped, preview.pulledTurns, preview.files.map((f) => [f.path, f.action])], [3, 2, [['local.txt', 'delete']]]);
  const result = await session.rewind(promptOf(b, fork.id, 1).id, { files: true });
  assert.deepEqual(result.restored, ['local.txt']);
  assert.deepEqual(files(b), THERE, 'the files the pulled turns name are left alone');
  assert.equal(fs.existsSync(path.join(b.workspace, 'local.txt')), false, 'the fork’s own change is rewound');
  assert.equal(b.store.get(fork.id).turnCount, 0, 'the conversation is rewound');
  await session.close();
});

test('a fork of such a fork marks the pulled turns again when cut inside them, and keeps the first mark when cut after it', async () => {
  const b = await machineB();
  const fork = await forkSession(b.store, sharedId);
  await (await localTurn(b, fork.id)).close();

  const inside = await forkSession(b.store, fork.id, { turn: 1 });
  assert.equal((b.records(inside.id).at(-1) as ForkedRecord).pulled, true);
  const early = previewRewind(b.store, inside.id, promptOf(b, inside.id, 1).id);
  assert.deepEqual([early.pulledTurns, early.files], [1, []]);

  const later = await forkSession(b.store, fork.id, { turn: 3 });
  assert.equal((b.records(later.id).at(-1) as ForkedRecord).pulled, undefined, 'the copy holds the first fork’s mark');
  const all = previewRewind(b.store, later.id, promptOf(b, later.id, 1).id);
  assert.deepEqual([all.pulledTurns, all.files.map((f) => f.path)], [2, ['local.txt']]);
  await rewindSession(b.store, later.id, promptOf(b, later.id, 1).id, { files: true });
  assert.deepEqual(files(b), THERE);
});

test('a pulled session whose last turn was still running there stays as pulled: no crash recovery, and the doctor only says so', async () => {
  const b = await machineB();
  const log = b.store.layout.agentLog(b.store.locate(sharedId));
  fs.appendFileSync(log, `${JSON.stringify({ v: 1, t: 'turn_begin', turn: 3, promptId: 'p3', model: null, ts: Date.now() })}\n`);
  b.store.index.rereadFolder(b.store.locate(sharedId));
  assert.equal(b.store.get(sharedId).status, 'running');
  const before = fs.readFileSync(log);
  assert.deepEqual(await b.store.recoverInterrupted(b.workspace), []);
  const report = await runDoctor(b.store, { fix: true });
  const findings = report.findings.filter((f) => f.where.endsWith(sharedId));
  assert.deepEqual(
    findings.map((f) => [f.severity, f.fixable, f.message]),
    [['info', false, `pulled from ${TEST_ORIGIN.remote} while a turn was running on ada-laptop; it is read-only here, and a later pull brings the rest`]],
  );
  assert.deepEqual(fs.readFileSync(log), before, 'the pulled log is as pulled');
});
