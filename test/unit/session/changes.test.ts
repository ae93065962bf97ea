import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import type { Session } from '../../../src/core/session/session';
import type { FileChangeRecord, FileReviewRecord, MessageRecord } from '../../../src/core/wire/records';
import { forkSession } from '../../../src/core/store/fork';
import { readFileReply, ScriptedModelServer } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';

// The Changes list over real HTTP and real files: what it lists for the last turn and the
// session, Keep and Undo per file and for all, the records they leave, and a rewind after them.
const server = new ScriptedModelServer();
let f: SessionFixture;
before(async () => {
  await server.start();
});
beforeEach(async () => {
  await f?.cleanup();
  f = await sessionFixture({ 'a.md': 'one\ntwo\n' });
});
after(async () => {
  await f?.cleanup();
  await server.close();
});

const httpModel = () => server.modelChoice();
const read = (name: string) => (fs.existsSync(path.join(f.workspace, name)) ? fs.readFileSync(path.join(f.workspace, name), 'utf8') : null);
const listed = (files: readonly { path: string }[]) => files.map((x) => x.path);

/** A turn whose model reads the files of `writes` that exist (read before write), writes them (path → content), then answers. */
async function turn(session: Session, prompt: string, writes: Record<string, string>): Promise<void> {
  const calls = Object.entries(writes).map(([p, content], i) => ({
    id: `${prompt}-${i}`,
    name: 'write_file',
    arguments: JSON.stringify({ path: p, content }),
  }));
  const existing = Object.keys(writes).filter((p) => read(p) !== null);
  if (existing.length > 0) server.enqueue(readFileReply(existing, `${prompt}-read`));
  server.enqueue({ kind: 'toolCalls', calls }, { kind: 'text', chunks: ['Done.'] });
  await session.submit(prompt);
  await session.waitForIdle();
}

/** Two turns: the first changes a.md and creates new.md, the second changes a.md again. */
async function twoTurns(): Promise<Session> {
  const session = await f.open({ model: httpModel });
  await turn(session, 'first', { 'a.md': 'one\nTWO\n', 'new.md': 'fresh\n' });
  await turn(session, 'second', { 'a.md': 'one\nTWO\nthree\n' });
  return session;
}

test('the lists name what the last turn and the session changed, with status and line counts', async () => {
  const session = await twoTurns();
  const { turn: last, thisTurn, session: all } = session.changes();
  assert.equal(last, 2);
  assert.deepEqual(thisTurn, [{ key: thisTurn[0]!.key, path: 'a.md', status: 'modified', added: 1, removed: 0 }]);
  assert.deepEqual(
    all.map((c) => [c.path, c.status, c.added, c.removed]),
    [
      ['a.md', 'modified', 2, 1],
      ['new.md', 'added', 1, 0],
    ],
  );
});

test("Undo in the turn's list restores the file as the turn found it, and records a file_change of its own", async () => {
  const session = await twoTurns();
  const key = session.changes().thisTurn[0]!.key;
  const result = await session.undoChanges([key], 'turn');
  assert.deepEqual([result.undone, result.skipped], [['a.md'], []]);
  assert.equal(read('a.md'), 'one\nTWO\n');
  const undo = f
    .records(session.id)
    .filter((r): r is FileChangeRecord => r.t === 'file_change')
    .at(-1)!;
  assert.match(undo.toolCallId, /^undo_/);
  assert.equal(undo.turn, 2);
  assert.notEqual(undo.before, undo.after);
  assert.deepEqual(listed(session.changes().thisTurn), [], 'the turn has nothing left to review');
  assert.deepEqual(listed(session.changes().session), ['a.md', 'new.md'], "the session's list still compares with the start");
});

test('Undo All in the session list brings back every file as the session found it, a created one removed', async () => {
  const session = await twoTurns();
  await session.undoChanges('all', 'session');
  assert.equal(read('a.md'), 'one\ntwo\n');
  assert.equal(read('new.md'), null);
  assert.deepEqual(session.changes(), { turn: 2, thisTurn: [], session: [] });
  // The conversation is untouched: only files went back.
  assert.equal(f.records(session.id).filter((r) => r.t === 'message' && (r as MessageRecord).message.role === 'user').length, 2);
});

test('Keep takes a file off the lists; a later change lists it again against the kept content', async () => {
  const session = await twoTurns();
  const newMd = session.changes().session.find((c) => c.path === 'new.md')!.key;
  assert.equal(await session.keepChanges([newMd], 'session'), 1);
  assert.deepEqual(listed(session.changes().session), ['a.md']);
  const review = f.records(session.id).at(-1) as FileReviewRecord;
  assert.deepEqual([review.t, review.path, review.decision, review.turn], ['file_review', 'new.md', 'keep', 2]);
  await turn(session, 'third', { 'new.md': 'fresh\nmore\n' });
  const again = session.changes().session.find((c) => c.path === 'new.md')!;
  assert.deepEqual([again.status, again.added, again.removed], ['modified', 1, 0]);
  // Undo now goes back to the kept content, not to before the file existed.
  await session.undoChanges([again.key], 'session');
  assert.equal(read('new.md'), 'fresh\n');
});

test('a file changed outside Braid since is left alone by Undo, and said', async () => {
  const session = await twoTurns();
  fs.writeFileSync(path.join(f.workspace, 'a.md'), 'edited by hand\n');
  const result = await session.undoChanges('all', 'session');
  assert.deepEqual(result.undone, ['new.md']);
  assert.equal(result.skipped.length, 1);
  assert.match(result.skipped[0]!.why, /a\.md changed outside Braid/);
  assert.equal(read('a.md'), 'edited by hand\n');
});

test('a rewind after an Undo restores the files as the rewound turn found them, with nothing "changed outside"', async () => {
  const session = await twoTurns();
  await session.undoChanges([session.changes().thisTurn[0]!.key], 'turn');
  await turn(session, 'third', { 'a.md': 'rewritten\n' });
  const prompts = f.records(session.id).filter((r) => r.t === 'message' && (r as MessageRecord).message.role === 'user') as MessageRecord[];
  const [second, third] = [prompts[1]!, prompts[2]!];
  const preview = await session.rewind(third.id, { files: true });
  assert.deepEqual(preview.skipped, []);
  assert.equal(read('a.md'), 'one\nTWO\n', 'as turn 3 found it: turn 2 undone');
  await session.rewind(second.id, { files: true });
  assert.equal(read('a.md'), 'one\nTWO\n', 'turn 2 began from here too');
  assert.deepEqual(listed(session.changes().session), ['a.md', 'new.md'], 'turn 1 is what is left to review');
  assert.equal(session.changes().turn, 1);
});

test('Undo is refused while a turn runs', async () => {
  const session = await twoTurns();
  server.enqueue({ kind: 'stall', chunks: ['Working'] });
  const streaming = new Promise<void>((resolve) => session.onEvent((e) => e.type === 'text-delta' && resolve()));
  await session.submit('a slow one');
  await streaming;
  await assert.rejects(session.undoChanges('all', 'session'), /a turn is running/);
  await session.cancel();
  await session.waitForIdle();
});

test("a fork at the last turn carries the source's Undos: a file undone before the fork is not listed in it", async () => {
  const session = await twoTurns();
  await session.undoChanges([session.changes().thisTurn[0]!.key], 'turn');
  await session.undoChanges([session.changes().session.find((c) => c.path === 'new.md')!.key], 'session');
  assert.equal(read('new.md'), null);
  const fork = await forkSession(f.store, session.id, { turn: 2 });
  const forked = await f.open({ model: httpModel }, fork.id);
  assert.deepEqual(listed(forked.changes().thisTurn), [], "turn 2's change was undone");
  assert.deepEqual(listed(forked.changes().session), ['a.md'], "new.md was undone; a.md is still turn 1's change");
  assert.deepEqual(listed(forked.changes().session), listed(session.changes().session), 'the fork lists what its source does');
  // A fork at an earlier turn: turn 2's Undo is of turn 2's image, which that fork never had.
  const early = await f.open({ model: httpModel }, (await forkSession(f.store, session.id, { turn: 1 })).id);
  assert.deepEqual(listed(early.changes().session), ['a.md'], "turn 1's a.md is listed; new.md's Undo undid turn 1's image, so it is carried");
});

test('an Undo is undone again: the files get back what the Undo took, and both lists show them again', async () => {
  const session = await twoTurns();
  const before = session.changes();
  const undo = await session.undoChanges('all', 'session');
  assert.deepEqual(undo.undone, ['a.md', 'new.md']);
  assert.equal(read('a.md'), 'one\ntwo\n');
  assert.deepEqual(listed(session.changes().session), []);
  const redo = await session.redoChanges(undo.reverse);
  assert.deepEqual(redo, { undone: ['a.md', 'new.md'], reverse: undo.reverse.map((d) => ({ ...d, baseline: d.current, current: d.baseline })), skipped: [] });
  assert.equal(read('a.md'), 'one\nTWO\nthree\n');
  assert.equal(read('new.md'), 'fresh\n');
  assert.deepEqual(session.changes(), before, 'the lists are as before the Undo');
  const redone = f
    .records(session.id)
    .filter((r): r is FileChangeRecord => r.t === 'file_change')
    .slice(-2);
  assert.ok(redone.every((r) => r.toolCallId.startsWith('redo_')));
  // The same from the turn's list.
  const turnUndo = await session.undoChanges('all', 'turn');
  assert.deepEqual(listed(session.changes().thisTurn), []);
  await session.redoChanges(turnUndo.reverse);
  assert.deepEqual(session.changes(), before, "the turn's list too");
  // A file changed by hand since the Undo is left alone.
  const again = await session.undoChanges('all', 'session');
  fs.writeFileSync(path.join(f.workspace, 'a.md'), 'by hand\n');
  const partly = await session.redoChanges(again.reverse);
  assert.deepEqual(partly.undone, ['new.md']);
  assert.match(partly.skipped[0]!.why, /a\.md changed outside Braid/);
  assert.equal(read('a.md'), 'by hand\n');
});
