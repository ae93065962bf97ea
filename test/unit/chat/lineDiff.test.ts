import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contextDiff, lineChanges, lineDiff } from '../../../src/core/format/lineDiff';
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

test('a context diff shows three unchanged lines around each change, under git-style hunk lines', () => {
  const file = (lines: string[]) => `${lines.join('\n')}\n`;
  const before = Array.from({ length: 30 }, (_, i) => `l${i + 1}`);
  const hello = before.map((l) => (l === 'l10' ? 'Hello' : l));
  assert.deepEqual(contextDiff(file(before), file(hello)), {
    diff: ['@@ -7,7 +7,7 @@', ' l7', ' l8', ' l9', '-l10', '+Hello', ' l11', ' l12', ' l13'].join('\n'),
    added: 1,
    removed: 1,
  });
  // Two changes far apart: two hunks, the second's numbers counting the first's added line.
  const two = before.flatMap((l) => (l === 'l2' ? [l, 'new'] : l === 'l25' ? ['L25'] : [l]));
  assert.equal(
    contextDiff(file(before), file(two)).diff,
    ['@@ -1,5 +1,6 @@', ' l1', ' l2', '+new', ' l3', ' l4', ' l5', '@@ -22,7 +23,7 @@', ' l22', ' l23', ' l24', '-l25', '+L25', ' l26', ' l27', ' l28'].join(
      '\n',
    ),
  );
  // Changes closer than twice the context share one hunk.
  const near = before.map((l) => (l === 'l10' || l === 'l15' ? l.toUpperCase() : l));
  assert.equal(
    contextDiff(file(before), file(near))
      .diff.split('\n')
      .filter((l) => l.startsWith('@@')).length,
    1,
  );
  // A new file is all added lines, without a header; nothing changed is no diff.
  assert.equal(contextDiff('', 'a\nb\n').diff, '+a\n+b');
  assert.equal(contextDiff(file(before), file(before)).diff, '');
  // Removing the whole file: the new side is empty, at line 0.
  assert.equal(contextDiff('a\nb\n', '').diff, '@@ -1,2 +0,0 @@\n-a\n-b');
});
