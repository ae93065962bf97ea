// Where the searched words are said in a text: a search result opens its turn with them marked
// (highlight.ts puts the marks in the DOM). A word matches as the index finds it (src/core/index/searchText.ts): where a word of the text
// starts with it, in any case, accents or not (unicode61 drops them); a CJK word anywhere.

/** What the index takes as a word's characters: letters, numbers and marks. */
const WORD_CHAR = '[\\p{L}\\p{N}\\p{M}]';
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Text without its accents, character for character (a character whose base is not one
 * character stays as it is), so a place in the result is the same place in the text.
 */
export function foldAccents(text: string): string {
  return text.replace(/[^\x20-\x7e]/gu, (c) => {
    const base = c.normalize('NFD').replace(/\p{M}+/gu, '');
    return base.length === c.length ? base : c;
  });
}

/** One pattern for every word of `words`, to run on folded text: a Latin word and the rest of the word it starts, a CJK word alone. */
export function wordsPattern(words: readonly string[]): RegExp | undefined {
  const parts = words
    .filter((w) => w.length > 0)
    .map((w) => {
      const escaped = foldAccents(w).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      return CJK.test(w) ? escaped : `(?<!${WORD_CHAR})${escaped}${WORD_CHAR}*`;
    });
  return parts.length > 0 ? new RegExp(parts.join('|'), 'giu') : undefined;
}

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
