import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readSessionFolder } from '../../../src/core/format/summary';
import { rowDisagreement } from '../../../src/core/index/indexRows';
import { forkSession } from '../../../src/core/store/fork';
import { rewindSession, undoRewind } from '../../../src/core/store/rewind';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { readNewestPage } from '../../../src/core/wire/newestPage';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { writeTestState } from '../../support/randomLog';
import { openStore, repoRoot, tempDir } from '../../support/store';

// A log Braid wrote before an undo was one `undo_rewind` record: its undo appended the dropped
// records again (test/fixtures/logs/undoCopiedBack/README.md). Today's code reads it as that code
// did, and forks, rewinds and undoes it by the turn map.

const fixture = path.join(repoRoot, 'test', 'fixtures', 'logs', 'undoCopiedBack');
const expected = JSON.parse(fs.readFileSync(path.join(fixture, 'read-by-that-code.json'), 'utf8')) as {
  messages: Array<{ id: string; turn: number; role: string }>;
  turnCount: number;
  status: string;
  usage: object;
  newestPage: string[];
};

/** The fixture's log as a session folder of `store` (its id and folder from the log's first record). */
function placeFixture(store: SessionStore): { id: string; log: string } {
  const text = fs.readFileSync(path.join(fixture, 'wire.jsonl'), 'utf8');
  const first = JSON.parse(text.slice(0, text.indexOf('\n'))) as { sessionId: string; workspaceDir: string };
  const key = workspaceKey(first.workspaceDir);
  const dir = store.layout.sessionDir(key, first.sessionId);
  const log = store.layout.agentLog(dir);
  fs.mkdirSync(path.dirname(log), { recursive: true });
  fs.writeFileSync(log, text);
  writeTestState(store.layout.stateFile(dir), {
    id: first.sessionId,
    workspaceKey: key,
    workspaceDir: first.workspaceDir,
    createdAt: 1_700_000_000_000,
    title: 'old undo',
  });
  store.index.rereadFolder(dir);
  return { id: first.sessionId, log };
}

const shape = (messages: Array<{ id: string; turn: number; message: { role: string } }>) =>
  messages.map((m) => ({ id: m.id, turn: m.turn, role: m.message.role }));

test('a log whose undo copied the dropped records back reads as the code that wrote it read it', async () => {
  const store = await openStore(tempDir('braid-old-undo-'));
  try {
    const { id, log } = placeFixture(store);
    assert.deepEqual(shape(store.history(id).messages), expected.messages);
    const state = store.get(id);
    assert.deepEqual([state.turnCount, state.status, state.usage], [expected.turnCount, expected.status, expected.usage]);
    assert.deepEqual(
      readNewestPage(log, 3).messages.map((m) => m.id),
      expected.newestPage,
    );
    assert.equal(rowDisagreement(store.index.get(id)!, readSessionFolder(store.locate(id)).summary), undefined);
  } finally {
    await store.close();
  }
});

test('such a log forks at a turn, rewinds and undoes by the turn map: the undo is one line', async () => {
  const store = await openStore(tempDir('braid-old-undo-ops-'));
  try {
    const { id, log } = placeFixture(store);
    const atOne = await forkSession(store, id, { turn: 1 });
    assert.deepEqual(
      shape(store.history(atOne.id).messages),
      expected.messages.filter((m) => m.turn === 1),
    );
    const prompt = expected.messages.find((m) => m.turn === 2 && m.role === 'user')!.id;
    await rewindSession(store, id, prompt, { files: false });
    assert.deepEqual(
      shape(store.history(id).messages),
      expected.messages.filter((m) => m.turn === 1),
    );
    const before = fs.statSync(log).size;
    const undo = await undoRewind(store, id);
    assert.equal(undo.turns, 1);
    assert.ok(fs.statSync(log).size - before < 200, 'one short line');
    assert.deepEqual(shape(store.history(id).messages), expected.messages);
    assert.equal(rowDisagreement(store.index.get(id)!, readSessionFolder(store.locate(id)).summary), undefined);
  } finally {
    await store.close();
  }
});
