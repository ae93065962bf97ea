import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'node:test';
import { codePointsStart, excerpt, firstLine, oneLineStart, textStart } from '../../../src/core/format/textStart';

// The start of a text for a display: the same as shaping the whole text and cutting it, read
// from the text's start only, and never half of a surrogate pair at the cut.

/** A text on one line as it was made before only its start was read: the whole text flattened. */
const flattenWhole = (text: string) =>
  text
    .replace(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

const THUMBS = '👍🏽'; // a pair, then a modifier's pair

test('a cut never ends in the first half of a surrogate pair', () => {
  const text = `ab${THUMBS}cd`;
  assert.equal(textStart(text, 3), 'ab', 'the pair of 👍 would be cut after its first half');
  assert.equal(textStart(text, 4), 'ab👍');
  assert.equal(textStart(text, 100), text);
  assert.equal(textStart(text, 0), '');
  // A lone high surrogate (not half of a pair) is a unit like another.
  assert.equal(textStart('a\uD83Db', 2), 'a\uD83D');
  assert.equal(excerpt(text, 3), 'ab…');
  assert.equal(excerpt(text, 8), text);
  assert.equal(codePointsStart(text, 3), 'ab👍');
  assert.equal(codePointsStart('a\uD83Db', 2), 'a\uD83D');
});

test('a first line is looked for in the text’s start only', () => {
  assert.equal(firstLine('one\ntwo'), 'one');
  assert.equal(firstLine('no break'), 'no break');
  assert.equal(firstLine(`${'x'.repeat(10)}\nmore`, 5), 'xxxxx');
  assert.equal(firstLine(`x${THUMBS}\n`, 2), 'x', 'not half of a pair');
});

test('the start of a text on one line is the whole text flattened, then cut', () => {
  const piece = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.constantFrom(' ', '  ', '\n\n', '\t', '\r\n', '\u00A0', '\u3000', '\uFEFF', '\u200F', '\u202E', ' \u200E ', 'a\u2066b', THUMBS, '\uD83D', '修复', '👨‍👩‍👧‍👦'),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 16 }), fc.integer({ min: 0, max: 80 }), (pieces, units) => {
      const text = pieces.join('');
      const whole = flattenWhole(text);
      const { line, more } = oneLineStart(text, units);
      assert.equal(line, whole.slice(0, units));
      assert.equal(more, whole.length > units);
    }),
    { numRuns: 2000 },
  );
});

test('runs of spaces, line breaks and bidi controls anywhere become at most one space', () => {
  assert.deepEqual(oneLineStart(`${' \n\t'.repeat(10_000)}Fix\u202E  the\n\nparser${' '.repeat(10_000)}`, 100), { line: 'Fix the parser', more: false });
  assert.deepEqual(oneLineStart('a\u200Eb \u200F c', 100), { line: 'ab c', more: false });
  // A space owed at the cut is part of the line when it fits; the line goes on after it.
  assert.deepEqual(oneLineStart('abc   def', 4), { line: 'abc ', more: true });
  assert.deepEqual(oneLineStart('abc   def', 3), { line: 'abc', more: true });
  assert.deepEqual(oneLineStart('abc   ', 3), { line: 'abc', more: false });
});
