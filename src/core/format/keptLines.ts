// Which lines of a text survive into the next version of it: the pairing of a shortest edit
// script (Myers' O(ND) diff), for following the lines a turn wrote through later edits.

/** Past this many inserted and deleted lines between two versions, the lines between their common start and end are taken as all new. */
const MAX_EDITS = 2000;

/**
 * For each line of `b`, the index of the line of `a` it is kept from, or -1 for a line `b` adds.
 * Kept lines are equal and in the same order in both, and as many as any common subsequence has,
 * unless the two differ by more than `maxEdits` lines: then only their common start and end are
 * kept (a line is never paired wrongly, only left unpaired).
 */
export function keptLines(a: readonly string[], b: readonly string[], maxEdits = MAX_EDITS): Int32Array {
  const kept = new Int32Array(b.length).fill(-1);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) {
    kept[head] = head;
    head++;
  }
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) {
    kept[b.length - 1 - tail] = a.length - 1 - tail;
    tail++;
  }
  const pairs = middlePairs(a.slice(head, a.length - tail), b.slice(head, b.length - tail), maxEdits);
  for (let p = 0; p < pairs.length; p += 2) kept[head + pairs[p + 1]!] = head + pairs[p]!;
  return kept;
}

/**
 * The kept lines of `a` and `b` as (index in a, index in b) pairs, flat, from the last one back.
 * Myers' forward search: `v` holds, per diagonal k = x - y, the furthest x reached with d edits;
 * `trace[d]` is its part a round reads (diagonals -d-1 to d+1) as the round begins.
 */
function middlePairs(a: readonly string[], b: readonly string[], maxEdits: number): number[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return [];
  const limit = Math.min(n + m, maxEdits);
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m);
    }
  }
  return [];
}

/** Walks the search back from the end, collecting the diagonal (kept) steps. */
function backtrack(trace: readonly Int32Array[], n: number, m: number): number[] {
  const pairs: number[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const at = (k: number) => trace[d]![k + d + 1]!;
    const k = x - y;
    const from = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const fromX = at(from);
    const fromY = fromX - from;
    while (x > fromX && y > fromY) pairs.push(--x, --y);
    x = fromX;
    y = fromY;
  }
  while (x > 0 && y > 0) pairs.push(--x, --y);
  return pairs;
}
