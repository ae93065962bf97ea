import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { recordFromHead } from '../../../src/core/format/headFold';
import { StoreLayout } from '../../../src/core/format/layout';
import { foldPieces, readSessionSummary } from '../../../src/core/format/summary';
import { walkPieces } from '../../../src/core/wire/lineWalk';
import type { WireRecord } from '../../../src/core/wire/records';
import { scanWireLog, scanWirePieces, type ScanOptions } from '../../../src/core/wire/wireReader';
import { logArb, RandomLog, writeRandomSession } from '../../support/randomLog';
import { tempDir } from '../../support/store';

// A log held in memory in pieces (a pull's chunks, as git's pipe gave them) is read by the rules a
// file is read by: for any split of its bytes, also one that cuts lines and UTF-8 sequences, the
// scan visits the same records at the same offsets and reports the same, and the fold a writer
// hands the index is the fold the index would read back from the file.

const dir = tempDir('braid-scan-pieces-');
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** `bytes` cut at the given places (any of them, in any order, repeated or not). */
function cut(bytes: Buffer, at: readonly number[]): Buffer[] {
  const ends = [...new Set(at.map((a) => a % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const end of [...ends, bytes.length]) {
    if (end > start) pieces.push(bytes.subarray(start, end));
    start = end;
  }
  return pieces;
}

/** A random log's bytes, a torn tail and lines that are not records among them. */
const bytesArb = fc
  .record({
    log: logArb,
    junk: fc.array(fc.constantFrom('not json\n', '\n', '   \n', '{"v":1,"t":"mess'), { maxLength: 3 }),
    cuts: fc.array(fc.nat(), { maxLength: 12 }),
  })
  .map(({ log, junk, cuts }) => {
    const random = new RandomLog('ses_pieces');
    for (const op of log.ops) random.apply(op);
    const body = random.bytes(0);
    const bytes = Buffer.concat([
      body.subarray(0, body.length >> 1),
      ...junk.map((j) => Buffer.from(j)),
      body.subarray(body.length >> 1),
      random.bytes(log.tornTail).subarray(body.length),
    ]);
    return { bytes, pieces: cut(bytes, cuts) };
  });

function visits(scan: (visit: (record: WireRecord, offset: number, length: number) => void) => unknown): unknown[] {
  const seen: unknown[] = [];
  const report = scan((record, offset, length) => seen.push({ record, offset, length }));
  return [seen, report];
}

test('a scan of a log in pieces visits and reports what a scan of its file does, parsed or taken from heads', () => {
  fc.assert(
    fc.property(bytesArb, fc.boolean(), ({ bytes, pieces }, heads) => {
      const file = path.join(dir, `log-${++files}.jsonl`);
      fs.writeFileSync(file, bytes);
      const options: ScanOptions = heads ? { fromHead: recordFromHead } : {};
      assert.deepEqual(
        visits((visit) => scanWirePieces(pieces, visit, options)),
        visits((visit) => scanWireLog(file, visit, options)),
      );
    }),
    { numRuns: 400 },
  );
});

test('walking pieces hands out the lines of a plain split; a line longer than the longest held is overlong', () => {
  fc.assert(
    fc.property(bytesArb, fc.integer({ min: 1, max: 400 }), ({ bytes, pieces }, maxLineBytes) => {
      const lines: string[] = [];
      const overlong: number[] = [];
      const walk = walkPieces(
        pieces,
        { line: (buf, start, end, offset) => void lines.push(`${offset}:${buf.toString('latin1', start, end)}`), overlong: (o) => void overlong.push(o) },
        maxLineBytes,
      );
      const expected: string[] = [];
      const expectedLong: number[] = [];
      let start = 0;
      for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, start)) {
        if (nl - start > maxLineBytes) expectedLong.push(start);
        else expected.push(`${start}:${bytes.toString('latin1', start, nl)}`);
        start = nl + 1;
      }
      const tail = bytes.subarray(start);
      if (tail.length > maxLineBytes) expectedLong.push(start);
      assert.deepEqual(lines, expected);
      assert.deepEqual(overlong, expectedLong);
      assert.equal(walk.overlongTail, tail.length > maxLineBytes);
      const heldTail = walk.tail ? walk.tail.buf.subarray(walk.tail.start, walk.tail.end) : Buffer.alloc(0);
      if (!walk.overlongTail) assert.ok(heldTail.equals(tail) && (walk.tail?.offset ?? start) === start);
    }),
    { numRuns: 400 },
  );
});

test('the fold of a log in pieces is the one the index reads back from its folder', () => {
  const layout = new StoreLayout(path.join(dir, 'store'));
  fc.assert(
    fc.property(logArb, fc.array(fc.nat(), { maxLength: 12 }), ({ ops, tornTail }, cuts) => {
      const session = writeRandomSession(layout, ops, tornTail);
      const read = readSessionSummary(path.dirname(path.dirname(path.dirname(session.file)))).summary;
      const folded = foldPieces(cut(fs.readFileSync(session.file), cuts));
      assert.deepEqual(folded, { fold: read.fold, logBytes: read.logBytes });
    }),
    { numRuns: 200 },
  );
});
