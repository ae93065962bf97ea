import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { foldAccents, hasMatch, markedPieces, wordsPattern } from '../../../media/src/wordMatch';
import { parseTurnReveal } from '../../../src/protocol/validate';

// The words a search result's turn shows marked: matched as the index matches them, and cut out
// of the text as text (the page puts each piece in a text node or a <mark>'s textContent).
const marked = (text: string, words: string[]) =>
  markedPieces(text, wordsPattern(words)!)
    .filter((p) => p.marked)
    .map((p) => p.text);

test('a word is marked where a word of the text starts with it, the whole word, in any case', () => {
  assert.deepEqual(marked('The Quillwort palette; unquilled QUILL.', ['quill']), ['Quillwort', 'QUILL']);
  assert.deepEqual(marked('Parse the parser, then PARSED it', ['pars', 'then']), ['Parse', 'parser', 'then', 'PARSED']);
  assert.deepEqual(marked('a foo_bar, foo-bar, foobar', ['bar']), ['bar', 'bar'], 'an underscore or a hyphen separates words, as in the index');
});

test('accents fold as the index folds them, and a CJK word matches inside a run', () => {
  assert.deepEqual(marked('Un café, a cafe', ['cafe']), ['café', 'cafe']);
  assert.deepEqual(marked('Un café, a cafe', ['café']), ['café', 'cafe']);
  assert.equal(foldAccents('Ünïcödé ß 한'), 'Unicode ß 한', 'character for character: what has no one-character base stays');
  assert.deepEqual(marked('我们的代码解析器很快', ['解析']), ['解析']);
});

test('HTML in the text and in the words stays text: pieces are the text cut, and a word is taken literally', () => {
  const text = 'Use <b>quill</b> & <mark onclick="x()">ink</mark>';
  const pieces = markedPieces(text, wordsPattern(['quill', 'ink'])!);
  assert.equal(pieces.map((p) => p.text).join(''), text);
  assert.deepEqual(
    pieces.filter((p) => p.marked).map((p) => p.text),
    ['quill', 'ink'],
  );
  assert.deepEqual(marked('x <mark> y', ['<mark>']), ['<mark>'], 'a word with markup in it matches those characters');
  assert.deepEqual(marked('abc a.c a+b', ['.*', 'a.c', '+b']), ['a.c'], 'regular-expression characters match themselves');
});

test('no match: the text stays one plain piece; no words: no pattern', () => {
  assert.deepEqual(markedPieces('Nothing to see', wordsPattern(['quill'])!), [{ text: 'Nothing to see', marked: false }]);
  assert.equal(hasMatch('Nothing to see', wordsPattern(['quill'])!), false);
  assert.equal(hasMatch('a quill', wordsPattern(['quill'])!), true);
  assert.equal(wordsPattern([]), undefined);
});

test('whatever the text and words, the pieces put together are the text, and each marked piece says a word', () => {
  const word = fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom('a', 'b', 'é', '解', '<', '.', '*') });
  fc.assert(
    fc.property(
      fc.string({ maxLength: 40, unit: fc.constantFrom('a', 'b', 'B', 'é', 'e', '解', ' ', '<', '>', '&', '.', '*') }),
      fc.array(word, { minLength: 1, maxLength: 3 }),
      (text, words) => {
        const pattern = wordsPattern(words)!;
        const pieces = markedPieces(text, pattern);
        assert.equal(pieces.map((p) => p.text).join(''), text);
        for (const p of pieces.filter((p) => p.marked)) assert.ok(hasMatch(p.text, pattern));
      },
    ),
  );
});

test('the page takes a snapshot reveal only whole: ids, a turn number, the keys and up to 16 short words', () => {
  const reveal = { id: 'r1', turn: 2, from: 'msg_a', to: 'call_b', words: ['quill'] };
  assert.deepEqual(parseTurnReveal({ ...reveal, extra: '<script>' }), reveal);
  assert.deepEqual(parseTurnReveal({ ...reveal, words: [] }), { ...reveal, words: [] }, 'a turn opened with nothing to mark (a blamed line)');
  for (const bad of [
    null,
    'r1',
    { ...reveal, turn: -1 },
    { ...reveal, turn: '2' },
    { ...reveal, from: '' },
    { ...reveal, to: 7 },
    { ...reveal, words: undefined },
    { ...reveal, words: 'quill' },
    { ...reveal, words: [''] },
    { ...reveal, words: ['x'.repeat(201)] },
    { ...reveal, words: Array<string>(17).fill('w') },
  ])
    assert.equal(parseTurnReveal(bad), undefined, JSON.stringify(bad)?.slice(0, 80));
});
