import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { distinctWords } from '../../../src/core/index/searchText';

// A turn's document is built for every turn a rebuild reads, so it is built the fast way (one CJK
// test per text, no test per word when the text has no CJK). Whatever the
// texts, the words must be those of the plain way kept here: each unicode61 word once, in order,
// lowercased, a CJK run as its characters and their pairs.

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u303B\u30FC\uFF70]/u;
const CJK_OR_OTHER = new RegExp(`${CJK.source}+|[^${CJK.source.slice(1, -1)}]+`, 'gu');

/** The words of texts the plain way: each text lowercased and split, each word tested for CJK. */
function plainDistinctWords(texts: readonly string[]): string {
  const into = new Set<string>();
  for (const text of texts) {
    for (const token of text.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? []) {
      if (!CJK.test(token)) {
        into.add(token);
        continue;
      }
      for (const part of token.match(CJK_OR_OTHER) ?? []) {
        if (!CJK.test(part)) {
          into.add(part);
          continue;
        }
        const chars = [...part];
        chars.forEach((c, i) => {
          into.add(c);
          if (i > 0) into.add(chars[i - 1]! + c);
        });
      }
    }
  }
  return [...into].join(' ');
}

/** Characters of every kind the splitting cares about: Latin, accents, marks, CJK (with ー 々 〻 ｰ), Hangul, emoji, digits, punctuation, space. */
const unit = fc.constantFrom(
  ...['a', 'B', 'z', 'É', 'é', 'ß', 'İ', 'Σ', 'ς', 'ж', '\u0301', '7', '٣'],
  ...['解', '析', '器', 'の', 'パ', 'ー', '々', '〻', 'ｰ', 'ｶ', '한', '글'],
  ...['😀', ' ', '\n', '_', '-', '.', ',', '/', '"', '\u00a0', '\u3000', '。'],
);
const text = fc.string({ maxLength: 60, unit });

test('the words of any texts are the plain way’s words, in the same order', () => {
  fc.assert(
    fc.property(fc.array(text, { maxLength: 5 }), (texts) => {
      assert.equal(distinctWords(texts), plainDistinctWords(texts));
    }),
    { numRuns: 2000 },
  );
});

test('texts without CJK, with it, and with a CJK run split between texts give the expected words', () => {
  assert.equal(distinctWords(['Parse the PARSER', 'the café; cafe']), 'parse the parser café cafe');
  assert.equal(distinctWords(['ラーメン', 'ン人々']), 'ラ ー ラー メ ーメ ン メン 人 ン人 々 人々');
  assert.equal(distinctWords(['解析', '器']), '解 析 解析 器', 'a run does not pair across two texts');
  assert.equal(distinctWords(['用parser解析', 'PARSER']), '用 parser 解 析 解析');
  assert.equal(distinctWords([]), '');
});

test('the words of any ASCII texts (split without the Unicode pattern) are the plain way’s words', () => {
  const ascii = fc.string({ maxLength: 80, unit: 'binary-ascii' });
  fc.assert(
    fc.property(fc.array(ascii, { maxLength: 5 }), (texts) => {
      assert.equal(distinctWords(texts), plainDistinctWords(texts));
    }),
    { numRuns: 2000 },
  );
  assert.equal(distinctWords(['Read src/X_y.ts:42 -- OK\tdone', 'ok DONE']), 'read src x y ts 42 ok done');
  assert.equal(distinctWords(['\u212A']), 'k', 'the Kelvin sign lowers to an ASCII k, split either way alike');
});
