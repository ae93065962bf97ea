import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { walkLines, walkLinesBackward } from '../../../src/core/wire/lineWalk';
import { tempDir } from '../../support/store';

// The line walkers read a file a chunk at a time, carry a line that spans chunks to the next read
// and grow their buffer for long lines. With chunks of a few bytes, every line crosses boundaries:
// the lines handed out must be those of a plain split, every byte passed exactly once, in order.

const dir = tempDir('braid-line-walk-');
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** Bytes made of lines of random lengths (some empty, some long), maybe without a last newline. */
const contentArb = fc
  .record({
    lines: fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.string({ minLength: 20, maxLength: 90 }), fc.constant('')), { maxLength: 25 }),
    last: fc.option(fc.string({ maxLength: 30 })),
  })
  .map(({ lines, last }) => Buffer.from(lines.map((l) => `${l.replace(/\n/g, ' ')}\n`).join('') + (last?.replace(/\n/g, ' ') ?? '')));

const sizesArb = fc
  .integer({ min: 1, max: 16 })
  .chain((chunkBytes) => fc.record({ chunkBytes: fc.constant(chunkBytes), maxLineBytes: fc.integer({ min: chunkBytes + 20, max: 120 }) }));

function write(bytes: Buffer): { file: string; fd: number } {
  const file = path.join(dir, `lines-${++files}`);
  fs.writeFileSync(file, bytes);
  return { file, fd: fs.openSync(file, 'r') };
}

/** The lines of a plain split: each whole line with its offset, and what follows the last newline. */
function split(bytes: Buffer): { lines: Array<{ text: string; offset: number }>; tail: string } {
  const lines: Array<{ text: string; offset: number }> = [];
  let start = 0;
  for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, start)) {
    lines.push({ text: bytes.toString('latin1', start, nl), offset: start });
    start = nl + 1;
  }
  return { lines, tail: bytes.toString('latin1', start) };
}

test('walking forward hands out the lines of a plain split, passes every byte once, and skips only overlong lines', () => {
  fc.assert(
    fc.property(contentArb, sizesArb, (bytes, sizes) => {
      const { fd } = write(bytes);
      try {
        const seen: Array<{ text: string; offset: number }> = [];
        const overlong: number[] = [];
        const passed: Buffer[] = [];
        const walk = walkLines(
          fd,
          0,
          bytes.length,
          {
            line: (buf, start, end, offset) => void seen.push({ text: buf.toString('latin1', start, end), offset }),
            overlong: (offset) => void overlong.push(offset),
            passed: (buf, start, end) => void passed.push(Buffer.from(buf.subarray(start, end))),
          },
          sizes,
        );
        const expected = split(bytes);
        const long = (l: { text: string }) => l.text.length > sizes.maxLineBytes;
        assert.deepEqual(
          seen,
          expected.lines.filter((l) => !long(l)),
        );
        const wholeLines = bytes.length - expected.tail.length;
        // A last line without its newline is overlong once more than the longest held was read of it.
        assert.deepEqual(overlong, [...expected.lines.filter(long).map((l) => l.offset), ...(walk.overlongTail ? [wholeLines] : [])]);
        assert.ok(Buffer.concat(passed).equals(bytes.subarray(0, walk.overlongTail ? bytes.length : wholeLines)), 'every byte passed once, in order');
        if (walk.overlongTail) assert.ok(expected.tail.length > sizes.maxLineBytes);
        else assert.equal(walk.tail ? walk.tail.buf.toString('latin1', walk.tail.start, walk.tail.end) : '', expected.tail);
      } finally {
        fs.closeSync(fd);
      }
    }),
    { numRuns: 500 },
  );
});

test('a forward walk stopped by its visitor passes the bytes up to the stopping line and no further', () => {
  fc.assert(
    fc.property(contentArb, sizesArb, fc.nat(), (bytes, sizes, pick) => {
      const expected = split(bytes).lines.filter((l) => l.text.length <= sizes.maxLineBytes);
      if (expected.length === 0) return;
      const stopAt = expected[pick % expected.length]!;
      const { fd } = write(bytes);
      try {
        const passed: Buffer[] = [];
        const walk = walkLines(
          fd,
          0,
          bytes.length,
          {
            line: (_buf, _start, _end, offset) => offset !== stopAt.offset,
            overlong: () => undefined,
            passed: (buf, start, end) => void passed.push(Buffer.from(buf.subarray(start, end))),
          },
          sizes,
        );
        const through = stopAt.offset + Buffer.byteLength(stopAt.text, 'latin1') + 1;
        assert.equal(walk.stoppedAt, through);
        assert.ok(Buffer.concat(passed).equals(bytes.subarray(0, through)));
      } finally {
        fs.closeSync(fd);
      }
    }),
    { numRuns: 300 },
  );
});

test('walking backward hands out the non-empty lines newest first, the last one without its newline too', () => {
  fc.assert(
    fc.property(contentArb, sizesArb, (bytes, sizes) => {
      const { fd } = write(bytes);
      try {
        const seen: Array<{ text: string; offset: number }> = [];
        walkLinesBackward(fd, bytes.length, (buf, start, end, offset) => void seen.push({ text: buf.toString('latin1', start, end), offset }), sizes);
        const { lines, tail } = split(bytes);
        const all = [...lines, ...(tail ? [{ text: tail, offset: bytes.length - tail.length }] : [])].filter((l) => l.text.length > 0).reverse();
        // A line longer than the longest held is passed over (one just one byte longer, at the file's start, may be read whole).
        const expected = all.filter(
          (l) => l.text.length <= sizes.maxLineBytes || (l.offset === 0 && l.text.length === sizes.maxLineBytes + 1 && seen.some((s) => s.offset === 0)),
        );
        assert.deepEqual(seen, expected);
      } finally {
        fs.closeSync(fd);
      }
    }),
    { numRuns: 500 },
  );
});
