import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { LogPreparer } from '../../../src/core/index/logPreparer';
import { prepareLog } from '../../../src/core/index/preparedLog';
import { readFolderSummary } from '../../../src/core/index/indexFolders';
import { searchSessions } from '../../../src/core/index/indexRows';
import { writeRow } from '../../../src/core/index/indexSync';
import { createSchema } from '../../../src/core/index/schema';
import { loadSqlJs } from '../../../src/core/index/sqlite';
import { silentLogger } from '../../../src/core/logger';
import { workerBundle } from '../../../src/core/workerBundle';
import { fauxAssistantMessage, fauxRead, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';
import { wasmPath } from '../../support/store';

// A pulled session's main log is made ready for the index on a worker thread (its fold and every
// turn's search document), so the index writes its row without reading the log back. What the
// worker makes must be what the index would have read, and the index must take a document only
// for the span of the log it was made from.

/** A session whose turns read a file (a tool's output), write one (a file change), ask in Chinese, and one still running. */
async function richSession(f: SessionFixture): Promise<string> {
  const session = await f.open();
  f.faux.setResponses([fauxRead('notes.md'), fauxAssistantMessage('the notes mention a lighthouse')]);
  await session.submit('read notes.md and tell me what it mentions');
  await session.waitForIdle();
  f.faux.setResponses([
    fauxAssistantMessage([fauxToolCall('write_file', { path: 'made.txt', content: 'written by the agent\n' }, { id: 'w1' })], { stopReason: 'toolUse' }),
    fauxAssistantMessage('wrote made.txt'),
  ]);
  await session.submit('write made.txt please');
  await session.waitForIdle();
  f.faux.setResponses([fauxAssistantMessage('解析器已经修好了')]);
  await session.submit('请修复解析器');
  await session.waitForIdle();
  await session.close();
  return session.id;
}

function mainLog(f: SessionFixture, id: string): string {
  return f.store.layout.agentLog(f.store.locate(id));
}

test('the worker thread makes a log ready as this thread does: the fold, and a document for every ended turn', async () => {
  assert.ok(fs.existsSync(workerBundle('indexWorker')), `the test runner bundles the index's worker (${workerBundle('indexWorker')})`);
  const f = await sessionFixture({ 'notes.md': 'a lighthouse on the cliff\n' });
  const preparer = new LogPreparer();
  try {
    const id = await richSession(f);
    const log = mainLog(f, id);
    const bytes = fs.readFileSync(log);
    const here = prepareLog(bytes);
    const there = await preparer.prepare(log, [bytes]);
    assert.deepEqual(there, here);
    assert.deepEqual(
      here.documents!.map((d) => d.turn),
      [1, 2, 3],
    );
    assert.match(here.documents![0]!.words, /\blighthouse\b/, "a tool's output is searched");
    assert.deepEqual(here.documents![1]!.files, ['made.txt']);
    assert.match(here.documents![2]!.words, /解析/);
    const summary = readFolderSummary(f.store.locate(id), silentLogger)!;
    assert.deepEqual(here.fold, summary.fold, 'the fold the index reads from the folder');
    assert.equal(here.logBytes, summary.logBytes);

    assert.equal(await preparer.prepare(path.join(f.root, 'no-such-log.jsonl'), [bytes]), undefined, 'a log the worker cannot read is left to the index');
    await preparer.close();
    assert.deepEqual(await preparer.prepare(log, [bytes]), here, 'once the worker is gone, logs are made ready on this thread');
  } finally {
    await preparer.close();
    await f.cleanup();
  }
});

test('the index takes a prepared document for the span it was made of, and reads the log for any other', async () => {
  const f = await sessionFixture({ 'notes.md': 'a lighthouse on the cliff\n' });
  const db = new (await loadSqlJs(wasmPath)).Database();
  try {
    createSchema(db);
    const id = await richSession(f);
    const prepared = prepareLog(fs.readFileSync(mainLog(f, id)));
    const [first, second] = prepared.documents!;
    const marked = [
      { ...first!, words: `${first!.words} zzmadeready` },
      { ...second!, end: second!.end + 1, words: 'zzstale' }, // made of another span: read from the log instead
    ];
    writeRow(db, id, readFolderSummary(f.store.locate(id), silentLogger)!, f.store.layout, marked);
    const turnsFound = (query: string) => searchSessions(db, query, {}).flatMap((hit) => hit.turns.map((t) => t.turn));
    assert.deepEqual(turnsFound('zzmadeready'), [1]);
    assert.deepEqual(turnsFound('zzstale'), []);
    assert.deepEqual(turnsFound('wrote'), [2], 'the second turn read from the log');
    assert.deepEqual(turnsFound('解析器'), [3], 'the third turn read from the log');
  } finally {
    db.close();
    await f.cleanup();
  }
});
