// Where the searched words are said in a text: a search result opens its turn with them marked
// (highlight.ts puts the marks in the DOM). A word matches by the index's word rules
// (src/core/index/wordRules.ts, through src/protocol): where a word of the text starts with it, in
// any case, accents or not (unicode61 drops them); a CJK word anywhere.

import { foldAccents, wordsPattern } from '../../src/protocol/wordRules';

export { foldAccents, wordsPattern };

/** Whether `text` says a word of the pattern. */
export function hasMatch(text: string, pattern: RegExp): boolean {
  return foldAccents(text).search(pattern) >= 0;
}

/** A run of a text, marked or not. */
export interface Piece {
  readonly text: string;
  readonly marked: boolean;
}

/** `text` cut into its plain runs and the runs that say a word of `pattern`, in order. */
export function markedPieces(text: string, pattern: RegExp): Piece[] {
  const pieces: Piece[] = [];
  let last = 0;
  for (const match of foldAccents(text).matchAll(pattern)) {
    if (match[0].length === 0) continue;
    if (match.index > last) pieces.push({ text: text.slice(last, match.index), marked: false });
    last = match.index + match[0].length;
    pieces.push({ text: text.slice(match.index, last), marked: true });
  }
  if (last < text.length) pieces.push({ text: text.slice(last), marked: false });
  return pieces;
}
