// Full-text search over titles and prompts (FTS4, unicode61). unicode61 splits words at spaces and
// punctuation, so a Chinese or Japanese sentence, written without spaces, would be one word that
// only its first characters find. Each CJK character is made a word of its own instead, in the
// text indexed and in the query, and a query's run of CJK characters becomes a phrase: the
// characters in a row, which finds any substring. Latin text and queries are left as they were.

/** Han, kana (with the prolonged sound mark and iteration marks) and Hangul: scripts written without spaces between words. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u303B\u30FC\uFF70]/u;
const CJK_ALL = new RegExp(` *(${CJK.source}) *`, 'gu');
const CJK_OR_OTHER = new RegExp(`${CJK.source}|[^${CJK.source.slice(1, -1)}]+`, 'gu');

/**
 * The text put into the search index: each CJK character stands between spaces. Applying it
 * again changes nothing (the index's copy is read back and re-indexed when a session's state
 * changes); the spaces it takes and gives only separate words, so search sees no difference.
 */
export function ftsText(text: string): string {
  if (!CJK.test(text)) return text;
  return text.replace(CJK_ALL, ' $1 ');
}

/**
 * Free text as an FTS4 query: every word must match. A Latin word matches as a prefix (`pars`
 * finds "parser"); CJK characters must appear in a row (`解析` finds "…的解析器…"), and a word
 * mixing both is a phrase of its parts.
 */
export function ftsQuery(text: string): string | undefined {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu);
  if (!words || words.length === 0) return undefined;
  return words.slice(0, 16).map(wordQuery).join(' ');
}

function wordQuery(word: string): string {
  if (!CJK.test(word)) return `${word}*`;
  const parts = word.match(CJK_OR_OTHER) ?? [];
  // A Latin part ending the word may go on in the text ("解析parser" finds "解析parsers").
  const last = parts.length - 1;
  return `"${parts.map((p, i) => (i === last && !CJK.test(p) ? `${p}*` : p)).join(' ')}"`;
}
