/** Most lines a diff in a tool card shows; a longer change says how many lines it left out. */
const MAX_LINES = 400;
/** Above this many lines per side the diff is shown as all removed / all added (no LCS). */
const LCS_LIMIT = 600;

/**
 * A line diff of `before` and `after` as unified-style lines (`-`, `+`, ` ` prefixes), through a
 * longest common subsequence table. Small inputs only: tool cards show one edit.
 */
export function lineDiff(before: string, after: string): string {
  // A final newline ends the last line; it is not a line of its own.
  const lines = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
  const a = lines(before);
  const b = lines(after);
  const out: string[] = [];
  if (a.length > LCS_LIMIT || b.length > LCS_LIMIT) {
    out.push(...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`));
  } else {
    // lcs[i][j] = length of the LCS of a[i..] and b[j..]
    const lcs = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = b.length - 1; j >= 0; j--) {
        lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] === b[j]) {
        out.push(` ${a[i]}`);
        i++;
        j++;
      } else if (i < a.length && (j >= b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
        out.push(`-${a[i++]}`); // removals first, as unified diffs read
      } else {
        out.push(`+${b[j++]}`);
      }
    }
  }
  if (out.length <= MAX_LINES) return out.join('\n');
  return [...out.slice(0, MAX_LINES), `… ${out.length - MAX_LINES} more lines`].join('\n');
}

/** The diff a write or edit tool call makes, from its arguments; empty for other tools. */
export function toolDiff(name: string, args: unknown): string {
  const a = (args ?? {}) as Record<string, unknown>;
  if (name === 'edit_file' && typeof a.old_text === 'string' && typeof a.new_text === 'string') return lineDiff(a.old_text, a.new_text);
  if (name === 'write_file' && typeof a.content === 'string') return lineDiff('', a.content);
  return '';
}
