import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineChanges, lineDiff } from '../../../src/core/format/lineDiff';
import { toolDiff } from '../../../src/vscode/chat/lineDiff';

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

test('one changed line of a long file is one line removed and one added, not the whole file', () => {
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
  const before = `${lines.join('\n')}\n`;
  const after = `${lines.map((l, i) => (i === 2500 ? 'changed' : l)).join('\n')}\n`;
  assert.deepEqual(lineChanges(before, after), { added: 1, removed: 1 });
  assert.deepEqual(lineChanges('', 'a\nb\n'), { added: 2, removed: 0 });
  assert.deepEqual(lineChanges('a\nb\nc', 'a\nc'), { added: 0, removed: 1 });
  assert.deepEqual(lineChanges('same\n', 'same\n'), { added: 0, removed: 0 });
  // The diff shown agrees with the counts: its one removed and one added line sit at the change.
  const diff = lineDiff(before, after).split('\n');
  assert.equal(diff.filter((l) => l.startsWith('-') || l.startsWith('+')).length, 0, 'the first 400 lines of context hold no change');
});

test('lines counted agree with the diff on random edits', () => {
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let round = 0; round < 200; round++) {
    const before = Array.from({ length: random(30) }, () => `l${random(6)}`);
    const after = before.filter(() => random(4) !== 0).flatMap((l) => (random(5) === 0 ? [l, `n${random(6)}`] : [l]));
    const diff = lineDiff(before.join('\n'), after.join('\n'));
    const lines = diff === '' ? [] : diff.split('\n');
    const counts = lineChanges(before.join('\n'), after.join('\n'));
    assert.equal(lines.filter((l) => l.startsWith('+')).length, counts.added);
    assert.equal(lines.filter((l) => l.startsWith('-')).length, counts.removed);
    // The diff's kept and removed lines read the old text, its kept and added lines the new one.
    assert.deepEqual(
      lines.filter((l) => !l.startsWith('+')).map((l) => l.slice(1)),
      before,
    );
    assert.deepEqual(
      lines.filter((l) => !l.startsWith('-')).map((l) => l.slice(1)),
      after,
    );
  }
});
