// Full-text search over what a session's turns said (FTS4, unicode61). A turn's document is the
// set of its distinct words, each once (src/core/index/turnSearch.ts), so the index keeps one
// position per word per turn however often the turn says it. unicode61 splits words at spaces
// and punctuation, so a Chinese or Japanese sentence, written without spaces, would be one word
// that only its first characters find; and with each word once, CJK characters cannot be found as
// a phrase of characters in a row. A run of CJK characters is therefore indexed as each of its
// characters and each pair of neighbours (bigrams), and a query's run of two or more characters
// asks for all of its pairs: any substring finds the turn (a turn holding every pair of the run
// but never the run itself is found too, as bigram indexes do). Latin words are indexed as they
// are and found by their start. What a word and a CJK character are is wordRules.ts's.
import { addWordTokens, CJK, hasCjk, wordTokens } from './wordRules';

const CJK_OR_OTHER = new RegExp(`${CJK.source}+|[^${CJK.source.slice(1, -1)}]+`, 'gu');

/** Adds a word of lowercased text to `into`: as it is, or when it holds CJK, its parts with each CJK run as its characters and bigrams. */
function addWord(token: string, into: Set<string>): void {
  if (!CJK.test(token)) {
    into.add(token);
    return;
  }
  for (const part of token.match(CJK_OR_OTHER) ?? []) {
    if (!CJK.test(part)) {
      into.add(part);
      continue;
    }
    let previous = '';
    for (const c of part) {
      into.add(c);
      if (previous) into.add(previous + c);
      previous = c;
    }
  }
}

/**
 * A turn's document: each word of its texts once, in order, lowercased, separated by spaces. A
 * rebuild makes one for every turn: most texts hold no CJK (one test of the whole text says so),
 * and their words go in as they are, with no test per word.
 */
export function distinctWords(texts: Iterable<string>): string {
  const words = new Set<string>();
  for (const text of texts) {
    const lower = text.toLowerCase();
    if (hasCjk(lower)) for (const token of wordTokens(lower)) addWord(token, words);
    else addWordTokens(lower, words);
  }
  return [...words].join(' ');
}

/**
 * Free text as an FTS4 query: every word must match. A Latin word matches as a prefix (`pars`
 * finds "parser"); a CJK character matches itself and a run of them all its bigrams (`解析器`
 * asks for 解析 and 析器); a word mixing both asks for each part.
 */
export function ftsQuery(text: string): string | undefined {
  const words = queryWords(text);
  if (words.length === 0) return undefined;
  return words.flatMap(wordQuery).join(' ');
}

/** The words of a query as typed (lowercased, at most 16): what a snippet looks for too. */
export function queryWords(text: string): string[] {
  // Split as the index splits (a `_` or `-` separates words): the words of a document are not in a row.
  return wordTokens(text.toLowerCase()).slice(0, 16);
}

function wordQuery(word: string): string[] {
  if (!CJK.test(word)) return [`${word}*`];
  return (word.match(CJK_OR_OTHER) ?? []).flatMap((part) => {
    if (!CJK.test(part)) return [`${part}*`];
    const chars = [...part];
    return chars.length === 1 ? chars : chars.slice(1).map((c, i) => chars[i] + c);
  });
}
