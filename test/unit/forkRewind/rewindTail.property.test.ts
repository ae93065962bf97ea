import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { applyRecord, compactFold, emptyFold, factsOf, type LogFold } from '../../../src/core/format/logFold';
import { readSessionFolder } from '../../../src/core/format/summary';
import { rowDisagreement } from '../../../src/core/index/indexRows';
import { RewindError, rewindSession } from '../../../src/core/store/rewind';
import { droppedCommands } from '../../../src/core/store/rewindCommands';
import { readDroppedTurns } from '../../../src/core/store/rewindTail';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import type { RewindRecord } from '../../../src/core/wire/records';
import { replay } from '../../../src/core/wire/replay';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { logArb, writeRandomSession } from '../../support/randomLog';
import { openStore, tempDir } from '../../support/store';

// A rewind reads the log from its end back to the prompt and takes the session's fold apart
// instead of reading the whole log. For random logs, what it reads must be what a whole read
// says of the dropped turns (the prompt, file changes, shell commands, turns), the fold it
// derives must be the fold of the whole log with the rewind folded in, and the index row after a
// real rewind must be the one read back from the folder.

const root = tempDir('braid-rewind-tail-');
let store: SessionStore;
before(async () => (store = await openStore(root)));
after(async () => {
  await store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The fold's JSON as the index keeps it. */
const kept = (fold: LogFold) => JSON.parse(JSON.stringify(compactFold(fold))) as LogFold;

test('reading a rewind from the end of the log says what reading the whole log says, and derives the fold of the whole log', async () => {
  let fast = 0;
  await fc.assert(
    fc.asyncProperty(logArb, fc.nat(), fc.boolean(), ({ ops, tornTail }, pick, fromIndex) => {
      const session = writeRandomSession(store.layout, ops, tornTail);
      const dir = path.dirname(path.dirname(path.dirname(session.file)));
      const whole = readSessionFolder(dir).summary;
      // The summary as the index keeps it (a compact fold), or as a whole read makes it.
      if (fromIndex) store.index.rereadFolder(dir);
      const summary = fromIndex ? store.index.summaryOf(session.id)! : whole;
      const records = readWireLog(session.file).records;
      const history = replay(records);
      const prompts = session.log.prompts();
      const id = prompts.length > 0 && pick % 5 !== 0 ? prompts[pick % prompts.length]! : `msg_${pick}`;
      const target = history.messages.find((m) => m.id === id && m.message.role === 'user');
      const read = readDroppedTurns(session.file, summary, id);
      if (summary.fold.ordered && target) assert.ok(read, 'a prompt of the history in a log in turn order is read from the end');
      if (!read) return;
      fast++;
      assert.ok(target, 'only a prompt of the history is read from the end');
      const k = target.turn;
      assert.deepEqual(read.prompt, target);
      assert.deepEqual(
        read.fileChanges,
        history.fileChanges.filter((c) => c.turn >= k),
      );
      assert.deepEqual(droppedCommands(read, k), droppedCommands(history, k));
      assert.equal(read.turnsBegun, history.turnBegins.filter((b) => b.turn >= k).length);
      const rewind: RewindRecord = { v: 1, ts: 1_900_000_000_000, t: 'rewind', toTurn: k, messageId: id, files: false };
      const full = emptyFold();
      for (const r of records) applyRecord(full, r);
      applyRecord(full, rewind);
      const derived = applyRecord({ ...read.fold }, rewind);
      assert.equal(derived.stale, false);
      assert.deepEqual(factsOf(derived), factsOf(full));
      assert.deepEqual(kept(derived), kept(full));
    }),
    { numRuns: 300 },
  );
  assert.ok(fast > 100, `most runs read from the end (${fast})`);
});

test('after a rewind read from the end, the index row is the one read back from the folder', async () => {
  let rewound = 0;
  await fc.assert(
    fc.asyncProperty(logArb, fc.nat(), async ({ ops, tornTail }, pick) => {
      const session = writeRandomSession(store.layout, ops, tornTail);
      const dir = path.dirname(path.dirname(path.dirname(session.file)));
      store.index.rereadFolder(dir);
      const prompts = session.log.prompts();
      if (prompts.length === 0) return;
      const id = prompts[pick % prompts.length]!;
      try {
        await rewindSession(store, session.id, id, { files: false });
      } catch (err) {
        if (err instanceof RewindError) return; // a turn still running, or a prompt the log cut short
        throw err;
      }
      rewound++;
      const reread = readSessionFolder(dir).summary;
      const row = store.index.get(session.id)!;
      assert.equal(rowDisagreement(row, reread), undefined, `row field ${rowDisagreement(row, reread)}`);
      const summary = store.index.summaryOf(session.id)!;
      assert.deepEqual(summary.fold, kept(reread.fold));
      assert.equal(summary.prompts, reread.prompts);
    }),
    { numRuns: 100 },
  );
  assert.ok(rewound > 40, `most runs rewind (${rewound})`);
});
