import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markedPieces, wordsPattern } from '../../../media/src/wordMatch';
import { queryWords } from '../../../src/core/index/searchText';
import { turnResults } from '../../../src/core/index/turnSnippet';
import { foldAccents, wordFinder } from '../../../src/core/index/wordRules';
import { promptStore } from '../../support/store';

// The index, a result's snippet and the page's marks follow one set of word rules: what the index
// finds by a word, the snippet shows matched and the page marks, and what it does not find
// neither of them claims.
const PROMPTS = {
  accented: 'Un café noir au comptoir',
  plain: 'a cafe latte to go',
  katakana: '昨日ラーメンを食べた',
  iteration: '人々が集まる',
  greek: 'Η Ελλάδα είναι ωραία',
  vietnamese: 'Tiếng Việt có dấu',
};

const { store, nameOf } = promptStore(PROMPTS);

/** For each session the index finds by `query`: the words its snippets show matched. */
function snippetMatches(query: string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const { row, turns } of store().index.searchTurns(query, {})) {
    const results = turnResults(store().layout, row, turns, query);
    found[nameOf(row.id)] = results.flatMap((r) => (r.match ? [r.snippet.slice(r.match[0], r.match[1])] : []));
  }
  return found;
}

/** For each prompt: the words the page marks in it when a search by `query` opens its turn. */
function pageMarks(query: string): Record<string, string[]> {
  const pattern = wordsPattern(queryWords(query))!;
  const marks: Record<string, string[]> = {};
  for (const [name, prompt] of Object.entries(PROMPTS)) {
    const marked = markedPieces(prompt, pattern).filter((p) => p.marked);
    if (marked.length > 0) marks[name] = marked.map((p) => p.text);
  }
  return marks;
}

test('"cafe" finds "café" and the snippet shows it matched, and "café" finds and shows "cafe"', () => {
  assert.deepEqual(snippetMatches('cafe'), { accented: ['café'], plain: ['cafe'] });
  assert.deepEqual(snippetMatches('CAFÉ'), { accented: ['café'], plain: ['cafe'] });
  assert.deepEqual(pageMarks('cafe'), { accented: ['café'], plain: ['cafe'] });
  assert.deepEqual(pageMarks('café'), { accented: ['café'], plain: ['cafe'] });
});

test('the prolonged sound mark ー and the iteration mark 々 are CJK alike for the index, the snippet and the page', () => {
  assert.deepEqual(snippetMatches('ー'), { katakana: ['ー'] });
  assert.deepEqual(pageMarks('ー'), { katakana: ['ー'] });
  assert.deepEqual(snippetMatches('々'), { iteration: ['々'] });
  assert.deepEqual(pageMarks('々'), { iteration: ['々'] });
  assert.deepEqual(snippetMatches('メン'), { katakana: ['メン'] }, 'a CJK word inside a run');
  assert.deepEqual(pageMarks('メン'), { katakana: ['メン'] });
});

test('what unicode61 does not fold (a Greek accent, a letter with two diacritics) neither the snippet nor the page folds', () => {
  for (const query of ['ελλαδα', 'viet', 'tieng']) {
    assert.deepEqual(snippetMatches(query), {}, query);
    assert.deepEqual(pageMarks(query), {}, query);
  }
  assert.deepEqual(snippetMatches('ελλάδα'), { greek: ['Ελλάδα'] }, 'with its accent, in any case');
  assert.deepEqual(pageMarks('ελλάδα'), { greek: ['Ελλάδα'] });
  assert.deepEqual(snippetMatches('co'), { accented: ['co'], vietnamese: ['có'] }, 'one diacritic folds');
  assert.deepEqual(pageMarks('co'), { accented: ['comptoir'], vietnamese: ['có'] });
});

test('wordFinder of one word: a Latin word at a word start as a prefix, any case and accents; CJK anywhere; none elsewhere', () => {
  assert.deepEqual(wordFinder(['resume'])('The Résumé, resumed'), [4, 10]);
  assert.deepEqual(wordFinder(['resume'])('unresumed resumé'), [10, 16]);
  assert.equal(wordFinder(['resume'])('unresumed'), undefined);
  assert.deepEqual(wordFinder(['解析'])('代码解析器'), [2, 4]);
  assert.equal(wordFinder(['.'])('a.c abc'), undefined, 'a word is taken literally');
  assert.equal(foldAccents('Ünïcödé ß ệ ά が'), 'Unicode ß ệ ά が', 'character for character; only what unicode61 folds');
});

test('wordFinder: the first of the query words a text says, in the query order, over many texts', () => {
  const find = wordFinder(['zeta', 'Café', '']);
  assert.deepEqual(find('a cafe and a zeta'), [13, 17], 'the first word of the query said wins over an earlier place');
  assert.deepEqual(find('CAFÉS here'), [0, 4], 'the next text is folded on its own');
  assert.equal(find('nothing to see'), undefined);
  assert.equal(wordFinder([])('zeta'), undefined, 'no words find nothing');
});
