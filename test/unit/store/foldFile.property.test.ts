import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { FOLD_FILE_LAG, foldOfLog, keepFold } from '../../../src/core/format/foldFile';
import { recordFromHead } from '../../../src/core/format/headFold';
import { StoreLayout } from '../../../src/core/format/layout';
import { applyRecord, emptyFold, type LogFold } from '../../../src/core/format/logFold';
import { readSessionSummary } from '../../../src/core/format/summary';
import { scanWireLog } from '../../../src/core/wire/wireReader';
import { logArb, writeRandomSession } from '../../support/randomLog';
import { addTurn, openStore, tempDir } from '../../support/store';

// The fold beside the log (fold.json) is a cache the index reads a session's fold from: whatever
// copy is there (none, one that lags, a damaged or foreign one), what comes back is the fold of
// the whole log.
const root = tempDir('braid-foldfile-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The fold of the log's first `end` bytes, read as the index reads a folder. */
function foldOfPrefix(file: string, end: number): LogFold {
  const fold = emptyFold();
  scanWireLog(file, (record, offset, length) => applyRecord(fold, record, offset, length), { end, fromHead: recordFromHead });
  return fold;
}

/** Where a copy may have been made: the log's start, the end of any line, its end (torn tail included). */
function lineEnds(file: string): number[] {
  const bytes = fs.readFileSync(file);
  const ends = [0, bytes.length];
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) ends.push(i + 1);
  return ends;
}

type Damage = 'none' | 'truncated' | 'other tail' | 'beyond the log' | 'not a fold';

test('a session fold read with any copy beside the log is the fold of the whole log', () => {
  const layout = new StoreLayout(path.join(root, 'random'));
  fc.assert(
    fc.property(
      logArb,
      fc.nat(),
      fc.constantFrom<Damage>('none', 'none', 'truncated', 'other tail', 'beyond the log', 'not a fold'),
      ({ ops, tornTail }, pick, damage) => {
        const session = writeRandomSession(layout, ops, tornTail);
        const dir = path.dirname(path.dirname(path.dirname(session.file)));
        const whole = readSessionSummary(dir).summary;
        const ends = lineEnds(session.file);
        const cut = ends[pick % ends.length]!;
        keepFold(dir, foldOfPrefix(session.file, cut), cut, 0);
        const copy = layout.foldFile(dir);
        assert.equal(JSON.parse(fs.readFileSync(copy, 'utf8')).logBytes, cut, 'the copy was written');
        damageCopy(copy, damage, whole.logBytes);
        assert.deepEqual(foldOfLog(dir, whole.logBytes), whole.fold);
        assert.equal(foldOfLog(dir, whole.logBytes + 1), undefined, 'a log shorter than the row says is not the row’s log');
      },
    ),
    { numRuns: 150 },
  );
});

function damageCopy(copy: string, damage: Damage, logBytes: number): void {
  const content = JSON.parse(fs.readFileSync(copy, 'utf8')) as { logBytes: number; tail: string; fold: unknown };
  if (damage === 'truncated') fs.writeFileSync(copy, fs.readFileSync(copy).subarray(0, 40));
  if (damage === 'other tail') fs.writeFileSync(copy, JSON.stringify({ ...content, tail: Buffer.from('another log').toString('base64') }));
  if (damage === 'beyond the log') fs.writeFileSync(copy, JSON.stringify({ ...content, logBytes: logBytes + 10 }));
  if (damage === 'not a fold') fs.writeFileSync(copy, JSON.stringify({ ...content, fold: { turns: 'many' } }));
}

test('the index keeps no fold: a long session’s is kept beside its log, written again only after the log grew by FOLD_FILE_LAG', async () => {
  const storeRoot = path.join(root, 'store');
  const workspaceDir = path.join(root, 'project');
  fs.mkdirSync(workspaceDir, { recursive: true });
  let store = await openStore(storeRoot);
  const { id } = await store.create({ workspaceDir });
  let writer = await store.openWriter(id);
  const answer = 'All the tests pass now. '.repeat(200);
  for (let i = 0; i < 240; i++) await addTurn(writer, `turn ${i}: run the tests`, answer); // about 1.2 MB
  await writer.close();
  await store.close();
  const dir = store.layout.sessionDir(store.get(id).workspaceKey, id);
  const copy = () => JSON.parse(fs.readFileSync(store.layout.foldFile(dir), 'utf8')) as { logBytes: number };
  const written = copy().logBytes;
  assert.ok(written >= FOLD_FILE_LAG, `the copy covers ${written} bytes`);

  store = await openStore(storeRoot);
  assert.deepEqual(store.index.summaryOf(id)?.fold, readSessionSummary(dir).summary.fold);
  writer = await store.openWriter(id);
  for (let i = 0; i < 3; i++) await addTurn(writer, `more ${i}`, 'Done.');
  await writer.close();
  await store.close();
  assert.equal(copy().logBytes, written, 'a few more turns leave the copy as it was');

  store = await openStore(storeRoot);
  const summary = store.index.summaryOf(id);
  assert.deepEqual(summary?.fold, readSessionSummary(dir).summary.fold, 'the turns after the copy are folded in from the log');
  assert.equal(summary?.state.turnCount, 243);
  const indexBytes = fs.statSync(store.layout.indexFile(store.get(id).workspaceKey)).size;
  assert.ok(indexBytes < 200 * 1024, `the index of one 243-turn session takes ${indexBytes} bytes`);
  await store.close();
});
