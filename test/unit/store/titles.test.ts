import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'node:test';
import {
  autoTitle,
  cutTitle,
  forkOrigin,
  forkTitle,
  SHOWN_TITLE_MAX,
  sessionLabel,
  sessionTitle,
  shownTitle,
  storedTitleLabel,
  TITLE_MAX,
} from '../../../src/core/format/titles';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const characters = (s: string) => Array.from(segmenter.segment(s), (x) => x.segment);
const graphemes = (s: string) => characters(s).length;

test('a Latin title is cut at the last word boundary that fits, with an ellipsis, never mid-word', () => {
  const prompt = 'Please summarize the project layout for me. Please read README.md and docs/architecture.md first';
  const title = cutTitle(prompt);
  assert.equal(title, 'Please summarize the project layout for me…');
  assert.ok(graphemes(title) <= TITLE_MAX);
  assert.ok(prompt.startsWith(title.slice(0, -1)), 'a prefix of the prompt');
  // A cut that falls right before a space keeps the whole last word.
  assert.equal(cutTitle('aaaa bbbb cccc', 10), 'aaaa bbbb…');
  // Dangling punctuation and spaces go before the ellipsis.
  assert.equal(cutTitle('Fix this, then that and the other', 12), 'Fix this…');
  // Short titles, and titles of exactly the length, are left whole (on one line).
  assert.equal(cutTitle('  Fix   the\nparser '), 'Fix the parser');
  assert.equal(cutTitle('x'.repeat(TITLE_MAX)), 'x'.repeat(TITLE_MAX));
});

test('a word too long to drop (a path, an address) is cut through rather than leaving a stub', () => {
  const url = 'https://example.com/a/very/long/path/that/goes/on/and/on/index.html';
  assert.equal(cutTitle(`See ${url}`), `See ${url}`.slice(0, TITLE_MAX - 1) + '…');
  assert.equal(cutTitle('x'.repeat(80)), `${'x'.repeat(TITLE_MAX - 1)}…`);
});

test('Chinese and Japanese text, written without spaces, is cut by characters', () => {
  const zh = '请帮我重构这个解析器并且为每一个边界情况都写好单元测试然后更新文档说明以及示例代码还有变更日志和发布说明';
  const title = cutTitle(zh, 20);
  assert.equal(title, `${Array.from(zh).slice(0, 19).join('')}…`);
  const ja = 'このプロジェクトの構成を説明してください。READMEとドキュメントを読んでから答えてください';
  assert.equal(cutTitle(ja, 12), 'このプロジェクトの構成…');
  // Mixed: a cut may fall between a CJK character and a Latin word, not inside the word.
  assert.equal(cutTitle('修复 parser 的 tokenizer 错误', 12), '修复 parser 的…');
});

test('an emoji with modifiers, a family or a flag is one character and never split', () => {
  const family = '👨‍👩‍👧‍👦';
  const title = cutTitle(`${family.repeat(60)}`, 10);
  assert.equal(title, `${family.repeat(9)}…`);
  assert.equal(cutTitle('Ship it 🚀🚀🚀 today please, all of it', 12), 'Ship it 🚀🚀🚀…');
  assert.equal(cutTitle('🇫🇷'.repeat(20), 5), `${'🇫🇷'.repeat(4)}…`);
});

test('automatic titles are the first prompt, cut; bidi controls never reach a label', () => {
  assert.equal(autoTitle('Refactor\u202E the parser'), 'Refactor the parser');
  assert.equal(sessionLabel({ title: '', firstPrompt: 'a '.repeat(100) }), `${'a '.repeat(24)}a…`);
  assert.equal(sessionLabel({}), 'Untitled session');
});

test('stored automatic titles that an older Braid cut mid-word are shown cut again; other titles are shown as stored', () => {
  const prompt = 'Tell me what the app does. Please read README.md and the docs first';
  const old = Array.from(prompt).slice(0, 50).join(''); // "… Please read README.md a"
  assert.ok(old.endsWith('README.md a'));
  assert.equal(shownTitle({ title: old, titleSource: 'auto', firstPrompt: prompt }), cutTitle(prompt));
  assert.equal(shownTitle({ title: old, titleSource: 'auto', firstPrompt: prompt }), 'Tell me what the app does. Please read README.md…');
  // Without the prompt (a state file alone), the partial last word is dropped too.
  assert.equal(shownTitle({ title: old, titleSource: 'auto' }), 'Tell me what the app does. Please read README.md…');
  // A user's title of 50 characters is theirs; a prompt of exactly 50 characters was not cut.
  assert.equal(shownTitle({ title: old, titleSource: 'user', firstPrompt: prompt }), old);
  const fifty = 'x'.repeat(40) + ' done now!';
  assert.equal(shownTitle({ title: fifty, titleSource: 'auto', firstPrompt: fifty }), fifty);
  // New automatic titles end in an ellipsis and are left alone.
  assert.equal(shownTitle({ title: cutTitle(prompt), titleSource: 'auto' }), cutTitle(prompt));
  assert.equal(sessionTitle({ title: old, titleSource: 'auto', firstPrompt: prompt }), cutTitle(prompt));
});

test('a fork says what it is, of which session, and forks that would read alike are numbered', () => {
  assert.equal(forkTitle('Plan the notes', 3), 'Fork at turn 3 of Plan the notes');
  assert.equal(forkTitle('Plan the notes', null), 'Fork of Plan the notes');
  const taken = new Set(['Fork of Plan the notes', 'Fork 2 of Plan the notes', 'Fork at turn 1 of Plan the notes']);
  assert.equal(forkTitle('Plan the notes', null, taken), 'Fork 3 of Plan the notes');
  assert.equal(forkTitle('Plan the notes', 1, taken), 'Fork 2 at turn 1 of Plan the notes');
  assert.equal(forkTitle('Plan the notes', 2, taken), 'Fork at turn 2 of Plan the notes');
  // The source's title is cut like any title.
  assert.equal(forkTitle('word '.repeat(30), 2), `Fork at turn 2 of ${cutTitle('word '.repeat(30))}`);
  // A fork of a fork names the session the chain began with, never "Fork of Fork of …".
  assert.equal(forkOrigin('Fork 2 at turn 3 of Plan the notes'), 'Plan the notes');
  assert.equal(forkOrigin('Fork the road'), 'Fork the road');
  assert.equal(forkTitle('Fork at turn 2 of Plan the notes', 3), 'Fork at turn 3 of Plan the notes');
  assert.equal(forkTitle('Fork 2 of Plan the notes', null), 'Fork of Plan the notes');
  assert.equal(forkTitle('Fork of Plan the notes', null), 'Fork 2 of Plan the notes', 'never the title of the fork it forks');
  assert.equal(forkTitle('Fork at turn 2 of Plan the notes', 2, new Set(['Fork 2 at turn 2 of Plan the notes'])), 'Fork 3 at turn 2 of Plan the notes');
});

/** A title as it was cut before only the prompt's start was read: the whole prompt flattened and segmented. */
function cutWhole(text: string, max: number): string {
  const flat = text
    .replace(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = characters(flat);
  if (chars.length <= max) return flat;
  const unspaced = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303F\uFF01-\uFF60]/u;
  const boundary = (i: number) => chars[i] === ' ' || unspaced.test(chars[i - 1]!) || unspaced.test(chars[i] ?? '');
  const room = max - 1;
  let cut = room;
  while (cut > 0 && !boundary(cut)) cut--;
  if (cut < room / 2) cut = room;
  return `${chars
    .slice(0, cut)
    .join('')
    .replace(/[\s.,;:\-–—、。，；：]+$/u, '')}…`;
}

const FAMILY = '👨‍👩‍👧‍👦';
const THUMBS = '👍🏽';

test('a title is the one the whole prompt gives, for prompts longer than what a title reads', () => {
  const piece = fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
    fc.constantFrom(' ', '\n\n', '\t', ', ', '. ', '\u200F', '\u202E', THUMBS, '\uD83D', '修复', 'テスト。', FAMILY),
    // Long pieces: the cut falls inside a run of spaces, a word, an emoji sequence.
    fc.constantFrom(' '.repeat(5000), '\n'.repeat(3300), 'x'.repeat(3300), `${THUMBS} `.repeat(900), FAMILY.repeat(400), '漢字'.repeat(2000)),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 14 }), fc.integer({ min: 1, max: 130 }), (pieces, max) => {
      const text = pieces.join('');
      assert.equal(cutTitle(text, max), cutWhole(text, max));
    }),
    { numRuns: 300 },
  );
});

test('a prompt that begins with a long run of spaces and line breaks is titled by its first words', () => {
  const prompt = `${' \n\t\u200E'.repeat(1_000_000)}Fix the parser, then write the tests for every edge case of it`;
  assert.equal(autoTitle(prompt), 'Fix the parser, then write the tests for every…');
  assert.equal(autoTitle(`${'\n'.repeat(1_000_000)}Short`), 'Short');
});

test('a cut at the end of what is read never splits a character: a surrogate pair, an emoji sequence, CJK', () => {
  // 64 units a character are read; these runs go on far past it.
  assert.equal(cutTitle(THUMBS.repeat(100_000), 10), `${THUMBS.repeat(9)}…`);
  assert.equal(cutTitle(`x${THUMBS.repeat(100_000)}`, 10), `x${THUMBS.repeat(8)}…`);
  assert.equal(autoTitle(FAMILY.repeat(100_000)), `${FAMILY.repeat(TITLE_MAX - 1)}…`);
  assert.equal(autoTitle('🇫🇷'.repeat(100_000)), `${'🇫🇷'.repeat(TITLE_MAX - 1)}…`);
  const zh = '请帮我重构这个解析器并且为每一个边界情况都写好单元测试';
  assert.equal(
    autoTitle(zh.repeat(10_000)),
    `${Array.from(zh.repeat(3))
      .slice(0, TITLE_MAX - 1)
      .join('')}…`,
  );
  // A character longer than all that is read (a letter under thousands of marks) is left out whole, never cut.
  const heavy = `Fix ${'a'.concat('\u0301'.repeat(10_000))} now`;
  const title = cutTitle(heavy, 10);
  assert.ok(title.endsWith('…'));
  assert.ok(
    characters(title.slice(0, -1)).every((c, i) => c === characters(heavy)[i]),
    `whole characters of the prompt: ${JSON.stringify(title)}`,
  );
});

test('a stored title longer than any label (a rename, a subagent task) is shown cut; shorter ones as stored', () => {
  const long = `${'word '.repeat(1_000_000)}end`;
  const shown = storedTitleLabel(long);
  // Its length first: segmenting a title of megabytes would take minutes.
  assert.ok(shown.length <= 4 * SHOWN_TITLE_MAX && graphemes(shown) <= SHOWN_TITLE_MAX && shown.endsWith('…'), `${shown.length} units`);
  assert.equal(shownTitle({ title: long, titleSource: 'user' }), shown);
  const ordinary = 'A title of my own \u202Ewith a bidi control';
  assert.equal(storedTitleLabel(ordinary), 'A title of my own with a bidi control');
  assert.equal(storedTitleLabel('x'.repeat(SHOWN_TITLE_MAX)), 'x'.repeat(SHOWN_TITLE_MAX));
});

test('an older cut title is recognised from the start of a huge first prompt', () => {
  const prompt = `Tell me what the app does. Please read README.md and the docs first ${'and more '.repeat(2_000_000)}`;
  const old = Array.from(prompt.slice(0, 100)).slice(0, 50).join('');
  assert.equal(shownTitle({ title: old, titleSource: 'auto', firstPrompt: prompt }), 'Tell me what the app does. Please read README.md…');
  assert.equal(sessionLabel({ title: '', firstPrompt: prompt }), autoTitle(prompt));
});
