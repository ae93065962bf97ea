import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { keptLines } from '../../../src/core/format/keptLines';

// The lines kept from one version of a file to the next pair equal lines, in order in both, and
// are as many as the longest common subsequence has (computed here the slow, plain way). Past the
// edit limit the pairing may keep fewer, never a wrong one.

/** The length of a longest common subsequence, by the textbook table. */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const next = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) next[j] = a[i - 1] === b[j - 1] ? row[j - 1]! + 1 : Math.max(row[j]!, next[j - 1]!);
    row = next;
  }
  return row[b.length]!;
}

/** Checks the pairing is a common subsequence and returns how many lines it keeps. */
function checkedPairs(a: readonly string[], b: readonly string[], kept: Int32Array): number {
  let last = -1;
  let count = 0;
  kept.forEach((i, j) => {
    if (i < 0) return;
    assert.ok(i > last, `kept lines stay in order (line ${j} of b from ${i} of a, after ${last})`);
    assert.equal(a[i], b[j], `line ${j} of b is kept from an equal line`);
    last = i;
    count++;
  });
  return count;
}

const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 40 });

test('kept lines are a longest common subsequence of the two versions', () => {
  fc.assert(
    fc.property(lines, lines, (a, b) => {
      assert.equal(checkedPairs(a, b, keptLines(a, b)), lcsLength(a, b));
    }),
    { numRuns: 2000 },
  );
});

test('past the edit limit, fewer lines are kept but none is paired wrongly', () => {
  fc.assert(
    fc.property(lines, lines, fc.integer({ min: 0, max: 6 }), (a, b, limit) => {
      const count = checkedPairs(a, b, keptLines(a, b, limit));
      assert.ok(count <= lcsLength(a, b));
    }),
    { numRuns: 2000 },
  );
});

test('a file edited in a few places keeps every other line, at the size of a long source file', () => {
  const a = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
  const b = [...a];
  b.splice(4000, 3, 'new 1', 'new 2');
  b.splice(100, 0, 'inserted');
  b.splice(2500, 1);
  const kept = keptLines(a, b);
  assert.equal(checkedPairs(a, b, kept), 5000 - 3 - 1);
  assert.deepEqual(
    [...kept].flatMap((i, j) => (i < 0 ? [b[j]] : [])),
    ['inserted', 'new 1', 'new 2'],
  );
});
