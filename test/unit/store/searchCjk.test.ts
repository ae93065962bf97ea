import assert from 'node:assert/strict';
import { test } from 'node:test';
import { distinctWords, ftsQuery } from '../../../src/core/index/searchText';
import { promptStore } from '../../support/store';

// Full-text search in Chinese, Japanese and Korean (written without spaces between words): any
// substring of 1, 2 or more characters finds the session; mixed Latin/CJK words too; Latin search
// is what it was (prefixes of words).
const PROMPTS = {
  chinese: '我们讨论解析器的性能问题',
  japanese: 'パーサーの性能について話しましょう',
  korean: '파서의 성능 문제를 논의합시다',
  mixed: '用parser解析JSON文件',
  latin: 'The parser tests are slow on large inputs',
};

const { store, ids, nameOf } = promptStore(PROMPTS);

const found = (text: string) =>
  store()
    .index.search(text, {})
    .map((r) => nameOf(r.id))
    .sort();

test('Chinese: substrings of 1, 2, 3 and more characters find the prompt; characters not in a row do not', () => {
  assert.deepEqual(found('解析器'), ['chinese']);
  assert.deepEqual(found('解析'), ['chinese', 'mixed']);
  assert.deepEqual(found('器'), ['chinese']);
  assert.deepEqual(found('性能问题'), ['chinese']);
  assert.deepEqual(found('讨论 性能'), ['chinese'], 'two words, both required');
  assert.deepEqual(found('解器'), [], 'the characters must be in a row');
  assert.deepEqual(found('问题很多'), []);
});

test('Japanese (kana and kanji) and Korean: substrings find the prompt', () => {
  assert.deepEqual(found('パーサー'), ['japanese']);
  assert.deepEqual(found('について'), ['japanese']);
  assert.deepEqual(found('話'), ['japanese']);
  assert.deepEqual(found('性能'), ['chinese', 'japanese'], 'the same kanji in Chinese and Japanese text');
  assert.deepEqual(found('が'), [], 'a kana with a voicing mark is not the kana without it');
  assert.deepEqual(found('논의'), ['korean'], 'a word inside a longer Korean word');
  assert.deepEqual(found('성능'), ['korean']);
  assert.deepEqual(found('파'), ['korean']);
});

test('mixed Latin and CJK words: each part is asked for', () => {
  assert.deepEqual(found('parser解析'), ['mixed']);
  assert.deepEqual(found('JSON文件'), ['mixed']);
  assert.deepEqual(found('解析json'), ['mixed']);
  assert.deepEqual(found('解析js'), ['mixed'], 'a Latin part at the end is a prefix');
  assert.deepEqual(found('parser'), ['latin', 'mixed'], 'a Latin word beside CJK text is a word of its own');
});

test('Latin search is unchanged: prefixes of words, every word required; each word indexed once', () => {
  assert.deepEqual(found('pars'), ['latin', 'mixed']);
  assert.deepEqual(found('parser slow'), ['latin']);
  assert.deepEqual(found('arser'), [], 'a Latin word matches from its start, as before');
  assert.equal(ftsQuery('Parser tests, slow!'), 'parser* tests* slow*');
  assert.equal(distinctWords([PROMPTS.latin, 'the PARSER']), 'the parser tests are slow on large inputs', 'each word once, lowercased');
});

test('a CJK run is indexed as its characters and their pairs, and queried by its pairs', () => {
  assert.equal(distinctWords(['解析器 解析']), '解 析 解析 器 析器');
  assert.equal(ftsQuery('解析器'), '解析 析器');
  assert.equal(ftsQuery('器'), '器');
  assert.equal(ftsQuery('用parser解析'), '用 parser* 解析');
});

test('a rename replaces the title in search; the prompts stay found', async () => {
  await store().rename(ids.chinese!, '解析器会议');
  await store().rename(ids.chinese!, '解析器会议笔记');
  assert.deepEqual(found('会议笔记'), ['chinese'], 'the title');
  assert.deepEqual(found('性能问'), ['chinese'], 'the prompts, after two re-indexings');
});
