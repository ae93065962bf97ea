// The start of a text, for a display: a title, a preview, a label, a one-line summary. A prompt or
// a model's answer can be tens of megabytes; what is shown of it is a few hundred characters. So
// these read only as far into a text as what they return needs (and through a run of spaces, in
// one native step), never the whole of it, and never end in half of a surrogate pair.

const BIDI = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';
/** Bidi controls: in a one-line label they would reorder what follows it (the row's description, the status bar). */
export const BIDI_CONTROLS = new RegExp(`[${BIDI}]`, 'g');

/** A run of what one line leaves out (spaces, line breaks, bidi controls), and the first character of one. */
const GAP = new RegExp(`[\\s${BIDI}]+`, 'y');
const GAP_START = new RegExp(`[\\s${BIDI}]`);
const GAPS = new RegExp(`[\\s${BIDI}]+`, 'g');
const SPACE = /\s/;

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** At most `units` UTF-16 units of `text`, one fewer when the last would be the first half of a pair. */
export function textStart(text: string, units: number): string {
  if (text.length <= units) return text;
  const end = units > 0 && isHighSurrogate(text.charCodeAt(units - 1)) && isLowSurrogate(text.charCodeAt(units)) ? units - 1 : units;
  return text.slice(0, end);
}

/** `text` cut to `units` as `textStart` cuts it, with an ellipsis when anything was left out. */
export function excerpt(text: string, units: number): string {
  const start = textStart(text, units);
  return start.length < text.length ? `${start}…` : text;
}

/** How far into a text a first line is looked for: further than any line a display shows. */
export const LINE_LOOK = 4096;

/** A text's first line (without its line break), looked for in its first `look` units only. */
export function firstLine(text: string, look = LINE_LOOK): string {
  const start = textStart(text, look);
  const end = start.indexOf('\n');
  return end < 0 ? start : start.slice(0, end);
}

/** The first `count` characters (code points) of a text; a lone surrogate counts as one, as Array.from counts it. */
export function codePointsStart(text: string, count: number): string {
  if (text.length <= count) return text;
  let end = 0;
  for (let n = 0; n < count && end < text.length; n++) end += isHighSurrogate(text.charCodeAt(end)) && isLowSurrogate(text.charCodeAt(end + 1)) ? 2 : 1;
  return text.slice(0, end);
}

/** The beginning of a text on one line, and whether the line goes on past it. */
export interface LineStart {
  readonly line: string;
  readonly more: boolean;
}

/**
 * The first `units` UTF-16 units of `text` on one line: each run of spaces and line breaks becomes
 * one space, bidi controls go, nothing at either end. The same as flattening the whole text and
 * cutting it (but that `line` may end in half of a pair), at the cost of the part read: the
 * characters kept and the runs skipped on the way (a run in one native step).
 */
export function oneLineStart(text: string, units: number): LineStart {
  // Most texts have words within their first few hundred units: flatten that head in one native
  // step. A head of mostly spaces (or a cut that leaves too little) goes word by word.
  const headUnits = 4 * units + 64;
  const head = text.length <= headUnits ? text : text.slice(0, headUnits);
  const flat = head.replace(GAPS, (gap) => (SPACE.test(gap) ? ' ' : '')).trim();
  if (head === text || flat.length > units) return { line: flat.slice(0, units), more: flat.length > units };
  return oneLineStartByWords(text, units);
}

/** {@link oneLineStart} a word at a time, for texts whose start is mostly spaces. */
function oneLineStartByWords(text: string, units: number): LineStart {
  let line = '';
  let spaceOwed = false;
  let at = 0;
  while (at < text.length) {
    GAP.lastIndex = at;
    const gap = GAP.exec(text);
    if (gap) {
      spaceOwed ||= SPACE.test(gap[0]);
      at = GAP.lastIndex;
      continue;
    }
    if (spaceOwed && line && line.length < units) line += ' ';
    spaceOwed = false;
    if (line.length >= units) return { line, more: true };
    // The characters up to the next gap, but no more than the line still takes.
    const ahead = text.slice(at, at + units - line.length);
    const gapAt = ahead.search(GAP_START);
    const word = gapAt < 0 ? ahead : ahead.slice(0, gapAt);
    line += word;
    at += word.length;
  }
  return { line, more: false };
}
