import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autoTitle, cutTitle, forkTitle, sessionLabel, sessionTitle, shownTitle, TITLE_MAX } from '../../../src/core/format/titles';

const graphemes = (s: string) => Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)).length;

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
});
