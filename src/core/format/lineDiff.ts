// Line diffs of small texts, for the tool cards and approvals of writes and edits.

/** Most lines a diff shows; a longer change says how many lines it left out. */
const MAX_LINES = 400;
/** Above this many changed lines on a side the diff shows them as all removed / all added (no LCS). */
const LCS_LIMIT = 600;

/** A text's lines: a final newline ends the last line; it is not a line of its own. */
export function linesOf(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

/** The lines of `before` and `after`, and how many both start and end with (common to them). */
function commonEnds(before: string, after: string): { a: string[]; b: string[]; head: number; tail: number } {
  const a = linesOf(before);
  const b = linesOf(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { a, b, head, tail };
}

/**
 * Every line of a diff of `before` and `after`, unified-style (`-`, `+`, ` ` prefixes). The lines
 * both start and end with are common; the middle goes through a longest common subsequence
 * table, or is shown as all removed / all added when it is long on either side.
 */
function diffLines(before: string, after: string): string[] {
  const { a, b, head, tail } = commonEnds(before, after);
  const middle = middleDiff(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  return [...a.slice(0, head).map((l) => ` ${l}`), ...middle, ...a.slice(a.length - tail).map((l) => ` ${l}`)];
}

function middleDiff(a: readonly string[], b: readonly string[]): string[] {
  if (a.length > LCS_LIMIT || b.length > LCS_LIMIT) return [...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)];
  // lcs[i][j] = length of the LCS of a[i..] and b[j..]
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: string[] = [];
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
  return out;
}

/** `lines` cut at MAX_LINES with a note of how many were left out, as one text. */
function shown(lines: readonly string[]): string {
  if (lines.length <= MAX_LINES) return lines.join('\n');
  return [...lines.slice(0, MAX_LINES), `… ${lines.length - MAX_LINES} more lines`].join('\n');
}

/** The added and removed lines among a diff's lines. */
function changesIn(lines: readonly string[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}

/** A line diff of `before` and `after` as {@link diffLines} makes it, cut at MAX_LINES lines with a note of how many were left out. */
export function lineDiff(before: string, after: string): string {
  return shown(diffLines(before, after));
}

/** How many lines a change from `before` to `after` adds and removes, counted as {@link lineDiff} shows them. */
export function lineChanges(before: string, after: string): { added: number; removed: number } {
  const { a, b, head, tail } = commonEnds(before, after);
  return changesIn(middleDiff(a.slice(head, a.length - tail), b.slice(head, b.length - tail)));
}

/** Unchanged lines a {@link contextDiff} shows on each side of a change. */
export const CONTEXT_LINES = 3;

/**
 * The lines of a diff that a diff editor would show: each change with `context` unchanged lines
 * around it; changes further apart than twice that each get a hunk of their own under git's
 * `@@ -start,count +start,count @@` line. A new file (empty `before`) has no header: its one
 * hunk is the whole file.
 */
function hunkLines(lines: readonly string[], before: string, context: number): string[] {
  const changed = lines.map((l) => l[0] === '+' || l[0] === '-');
  const shown = changed.map((_, i) => changed.slice(Math.max(0, i - context), i + context + 1).some(Boolean));
  const out: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (let i = 0; i < lines.length;) {
    if (!shown[i]) {
      oldLine++;
      newLine++;
      i++;
      continue;
    }
    let end = i;
    while (end < lines.length && shown[end]) end++;
    const hunk = lines.slice(i, end);
    const olds = hunk.filter((l) => l[0] !== '+').length;
    const news = hunk.filter((l) => l[0] !== '-').length;
    if (before !== '') out.push(`@@ -${olds ? oldLine : oldLine - 1},${olds} +${news ? newLine : newLine - 1},${news} @@`);
    out.push(...hunk);
    oldLine += olds;
    newLine += news;
    i = end;
  }
  return out;
}

/**
 * A diff of a whole file's change as a diff editor shows it: every change with
 * {@link CONTEXT_LINES} unchanged lines around it (see {@link hunkLines}), cut at MAX_LINES lines;
 * with how many lines it adds and removes. Empty when nothing changed.
 */
export function contextDiff(before: string, after: string, context = CONTEXT_LINES): { diff: string; added: number; removed: number } {
  const lines = diffLines(before, after);
  return { diff: shown(hunkLines(lines, before, context)), ...changesIn(lines) };
}
