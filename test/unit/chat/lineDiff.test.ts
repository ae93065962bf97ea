import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineDiff, toolDiff } from '../../../src/vscode/chat/lineDiff';

test('a line diff keeps common lines and marks removed and added ones', () => {
  assert.equal(lineDiff('a\nb\nc', 'a\nB\nc'), ' a\n-b\n+B\n c');
  assert.equal(lineDiff('', 'new\nfile'), '+new\n+file');
  assert.equal(lineDiff('gone', ''), '-gone');
  assert.equal(lineDiff('same', 'same'), ' same');
});

test('write and edit tool calls get a diff from their arguments; other tools none', () => {
  assert.equal(toolDiff('edit_file', { path: 'x', old_text: 'let a = 1;', new_text: 'let a = 2;' }), '-let a = 1;\n+let a = 2;');
  assert.equal(toolDiff('write_file', { path: 'x', content: 'hello\n' }), '+hello');
  assert.equal(toolDiff('bash', { command: 'ls' }), '');
  assert.equal(toolDiff('edit_file', { path: 'x' }), '');
});

test('a huge change is cut with a note of how much was left out', () => {
  const before = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n');
  const diff = lineDiff(before, '').split('\n');
  assert.equal(diff.length, 401);
  assert.equal(diff.at(-1), '… 600 more lines');
});
