import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { readSessionFolder } from '../../../src/core/format/summary';
import { rowDisagreement } from '../../../src/core/index/indexRows';
import { contextMessages } from '../../../src/core/session/compaction';
import { previewRewind, RewindError, rewindSession, undoRewind } from '../../../src/core/store/rewind';
import { droppedCommands } from '../../../src/core/store/rewindCommands';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { readContextTail } from '../../../src/core/wire/contextTail';
import { readNewestPage } from '../../../src/core/wire/newestPage';
import { replay, type History } from '../../../src/core/wire/replay';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { logArb, writeRandomSession, type LogOp } from '../../support/randomLog';
import { openStore, tempDir } from '../../support/store';

// The turn map is the one model of where turns lie: a rewind reads only the spans of the turns it
// drops, its undo is one record, and paging and the context tail read from the end. For random
// logs (undos of both kinds, records of older turns, damaged lines, a torn tail), each must say
// what a whole read of the log says, and every index row must be the one read back from the folder.

const root = tempDir('braid-turn-map-');
let store: SessionStore;
before(async () => (store = await openStore(root)));
after(async () => {
  await store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const historyOf = (file: string): History => replay(readWireLog(file).records);
const ids = (history: Pick<History, 'messages'>) => history.messages.map((m) => m.id);

function assertRowIsFolder(id: string): void {
  const dir = store.locate(id);
  const reread = readSessionFolder(dir).summary;
  const row = store.index.get(id)!;
  assert.equal(rowDisagreement(row, reread), undefined, `row field ${rowDisagreement(row, reread)}`);
  assert.deepEqual(store.index.summaryOf(id)!.fold, JSON.parse(JSON.stringify(reread.fold)), 'the fold kept in the index');
}

test('a rewind read from the turn map says what a whole read says; its undo is one line and brings the conversation back', async () => {
  let rewound = 0;
  let undone = 0;
  await fc.assert(
    fc.asyncProperty(logArb, fc.nat(), fc.boolean(), async ({ ops, tornTail }, pick, indexed) => {
      const session = writeRandomSession(store.layout, ops, tornTail);
      const dir = path.dirname(path.dirname(path.dirname(session.file)));
      if (indexed) store.index.rereadFolder(dir);
      const history = historyOf(session.file);
      const prompts = history.messages.filter((m) => m.message.role === 'user');
      if (prompts.length === 0) return;
      const target = prompts[pick % prompts.length]!;
      const k = target.turn;
      let preview;
      try {
        preview = previewRewind(store, session.id, target.id);
      } catch (err) {
        if (err instanceof RewindError && history.openTurn !== null) return; // a turn still running
        throw err;
      }
      // The preview from the dropped spans, against the whole history.
      assert.equal(preview.toTurn, k);
      assert.equal(preview.turnsDropped, history.turnBegins.filter((b) => b.turn >= k).length);
      const whole = droppedCommands(history, k);
      assert.deepEqual([preview.commands, preview.commandsMayHaveRun, preview.mcpCalls], [whole.ran, whole.mayHaveRun, whole.mcpCalls]);
      // Each file the dropped turns changed is listed, or left alone and said why (these logs' folder is not the session's).
      const changed = new Set(history.fileChanges.filter((c) => c.turn >= k).map((c) => c.path));
      assert.equal(preview.files.length + preview.refused.length, changed.size);
      for (const f of preview.files) assert.ok(changed.has(f.path));
      const bytesBefore = fs.statSync(session.file).size;
      await rewindSession(store, session.id, target.id, { files: false });
      rewound++;
      assert.deepEqual(
        ids(historyOf(session.file)),
        ids(history).filter((_, i) => history.messages[i]!.turn < k),
      );
      assertRowIsFolder(session.id);
      const rewoundBytes = fs.statSync(session.file).size;
      const undo = await undoRewind(store, session.id);
      undone++;
      const grown = fs.statSync(session.file).size - rewoundBytes;
      assert.ok(grown > 0 && grown <= 1024, `an undo grows the log by one short line (${grown} bytes)`);
      assert.ok(bytesBefore < rewoundBytes);
      assert.equal(undo.turns, preview.turnsDropped);
      assert.deepEqual(ids(historyOf(session.file)), ids(history), 'the conversation is back as it was');
      assertRowIsFolder(session.id);
      await assert.rejects(undoRewind(store, session.id), /already undone/);
    }),
    { numRuns: 150 },
  );
  assert.ok(rewound > 60 && undone === rewound, `most runs rewind and undo (${rewound}, ${undone})`);
});

const emptyTurn: LogOp = { kind: 'turn', prompt: '', tools: [], resultChars: 0, answer: '', outcome: 'completed', model: 0 };

test('the newest pages and the context tail, read from the end, are what a whole read says', async () => {
  await fc.assert(
    fc.asyncProperty(logArb, fc.integer({ min: 1, max: 6 }), ({ ops, tornTail }, limit) => {
      const session = writeRandomSession(store.layout, ops, tornTail);
      const history = historyOf(session.file);
      // Every page, newest first, until the start: together the whole conversation.
      const pages: string[][] = [];
      let page = readNewestPage(session.file, limit);
      pages.unshift(ids(page));
      while (page.before) {
        page = readNewestPage(session.file, limit, page.before);
        pages.unshift(ids(page));
      }
      assert.deepEqual(pages.flat(), ids(history));
      const tail = readContextTail(session.file);
      assert.deepEqual(
        contextMessages(tail).map((m) => JSON.stringify(m)),
        contextMessages(history).map((m) => JSON.stringify(m)),
      );
      assert.equal(tail.openTurn, history.openTurn);
    }),
    {
      numRuns: 200,
      // Found by this property: two rewinds in a row and an undo, which takes back the second only.
      examples: [[{ ops: [emptyTurn, emptyTurn, { kind: 'rewind', pick: 325727169 }, { kind: 'rewind', pick: 0 }, { kind: 'undo-record' }], tornTail: 0 }, 1]],
    },
  );
});
