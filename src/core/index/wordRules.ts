// The word rules of search, in one place: what the index counts as a word and a CJK character
// (searchText.ts), where a result's snippet finds a query word (turnSnippet.ts), and where the
// Chat page marks it (media/src/wordMatch.ts, through src/protocol/wordRules.ts). Pure: it
// imports nothing, so the page bundles it (eslint.config.mjs, pureCoreModules).

/** Han, kana (with the prolonged sound marks and the iteration marks 々 〻) and Hangul: scripts written without spaces between words. */
export const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u303B\u30FC\uFF70]/u;

/** What unicode61 takes as a word's characters: letters, numbers and marks. */
export const WORD_CHAR = '[\\p{L}\\p{N}\\p{M}]';
const WORD = new RegExp(`${WORD_CHAR}+`, 'gu');

/** Whether `text` holds a CJK character. */
export function hasCjk(text: string): boolean {
  return CJK.test(text);
}

/**
 * Text without the accents unicode61 drops, character for character, so a place in the result is
 * the same place in the text: a Latin letter with one diacritic becomes its base letter (é is e).
 * unicode61 (remove_diacritics=1) keeps a letter with two (ệ) and every other script's (a Greek
 * ά is not α, a kana が is not か), and so does this.
 */
export function foldAccents(text: string): string {
  return text.replace(/(?!\p{ASCII})\p{Script=Latin}/gu, (c) => {
    const parts = c.normalize('NFD');
    return parts.length === 2 && /\p{M}/u.test(parts[1]!) ? parts[0]! : c;
  });
}

/** The words of a text as unicode61 splits it: runs of letters, numbers and marks. */
export function wordTokens(text: string): string[] {
  return text.match(WORD) ?? [];
}

const ASCII_ONLY = /^\p{ASCII}*$/u;

/**
 * The words of `text` (as {@link wordTokens} splits it) added to `into`. In ASCII text the
 * letters, numbers and marks are A-Z, a-z and 0-9, and its runs are found without the Unicode
 * pattern: one and a half times as fast on tool output, and a rebuild splits every turn's text.
 */
export function addWordTokens(text: string, into: Set<string>): void {
  if (!ASCII_ONLY.test(text)) {
    for (const token of wordTokens(text)) into.add(token);
    return;
  }
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      into.add(text.slice(start, i));
      start = -1;
    }
  }
}

/**
 * The pattern of one query word, to run on folded text (any case): a word holding CJK anywhere;
 * a Latin word where a word of the text starts with it, with the rest of that word when `whole`.
 */
function wordSource(word: string, whole: boolean): string {
  const escaped = foldAccents(word).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  if (hasCjk(word)) return escaped;
  return `(?<!${WORD_CHAR})${escaped}${whole ? `${WORD_CHAR}*` : ''}`;
}

/** One pattern for every word of `words`, to run on folded text (`foldAccents`): a Latin word and the rest of the word it starts, a CJK word alone. */
export function wordsPattern(words: readonly string[]): RegExp | undefined {
  const parts = words.filter((w) => w.length > 0).map((w) => wordSource(w, true));
  return parts.length > 0 ? new RegExp(parts.join('|'), 'giu') : undefined;
}

/**
 * A finder of where a query's words are first said in a text, its patterns compiled once for all
 * the texts it is run on (each text is folded once): the first of `words` the text says, a Latin
 * word at a word's start, as a prefix; a CJK word anywhere; any case, any accents. Places are in
 * UTF-16 units of the text.
 */
export function wordFinder(words: readonly string[]): (text: string) => [number, number] | undefined {
  const patterns = words.filter((w) => w.length > 0).map((w) => new RegExp(wordSource(w, false), 'iu'));
  return (text) => {
    if (patterns.length === 0) return undefined;
    const folded = foldAccents(text);
    for (const pattern of patterns) {
      const m = pattern.exec(folded);
      if (m) return [m.index, m.index + m[0].length];
    }
    return undefined;
  };
}
