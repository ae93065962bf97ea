import assert from 'node:assert/strict';
import { test } from 'node:test';
import { counted } from '../../../src/core/counted';
import { leftOutNote, type ForkedSession } from '../../../src/core/store/fork';
import type { RewindPreview, RewindResult } from '../../../src/core/store/rewind';
import { changesUndoneNote, leftAloneNote, pulledTurnsNote, rewindQuestion, rewoundNote, undoneNote } from '../../../src/vscode/rewindNotes';

// What VS Code says about rewinds, undos and forks: numbers in proper English, never "turn(s)".
const preview = (turnsDropped: number, files: string[] = []): RewindPreview => ({
  toTurn: 2,
  messageId: 'm',
  text: 'Create hello.txt',
  turnsDropped,
  alreadyRewound: turnsDropped === 0,
  importedTurns: 0,
  pulledTurns: 0,
  commands: [],
  commandsMayHaveRun: [],
  mcpCalls: [],
  refused: [],
  files: files.map((path) => ({ path, root: '/w', action: 'delete', added: 0, removed: 1, changedOutside: false })),
});
const result = (turnsDropped: number, restored: string[], skipped: string[] = []): RewindResult => ({
  ...preview(turnsDropped, [...restored, ...skipped]),
  restored,
  skipped,
});

test('counts read as English: 1 turn, 2 turns, 0 files', () => {
  assert.equal(counted(1, 'turn'), '1 turn');
  assert.equal(counted(2, 'turn'), '2 turns');
  assert.equal(counted(0, 'file'), '0 files');
  assert.equal(counted(3, 'entry', 'entries'), '3 entries');
});

test('the rewind dialog, its notification and the undo say turns and files in proper numbers', () => {
  assert.equal(rewindQuestion(preview(1)), 'Rewind 1 turn of this session?');
  assert.equal(rewindQuestion(preview(2)), 'Rewind 2 turns of this session?');
  assert.match(rewindQuestion(preview(0)), /already rewound to this prompt/);
  assert.equal(rewoundNote(result(1, ['hello.txt']), true), 'Rewound 1 turn and restored 1 file.');
  assert.equal(rewoundNote(result(3, ['a', 'b']), true), 'Rewound 3 turns and restored 2 files.');
  assert.equal(rewoundNote(result(2, [], ['notes.md']), true), 'Rewound 2 turns and restored 0 files; left notes.md alone (changed outside Braid).');
  assert.equal(rewoundNote(result(1, []), false), 'Rewound 1 turn.');
  assert.equal(rewoundNote({ ...result(1, []), files: preview(1, ['a']).files }, false), 'Rewound 1 turn; the files stay as they are.');
  assert.equal(rewoundNote(result(0, ['a']), true), 'Restored 1 file the last rewind had left.');
  assert.equal(undoneNote({ turns: 1, files: ['hello.txt'] }), 'Undid the rewind: 1 turn and 1 file are back.');
  assert.equal(undoneNote({ turns: 1, files: [] }), 'Undid the rewind: 1 turn is back.');
  assert.equal(
    undoneNote({ turns: 1, files: [], checkpointsRemoved: ['a.txt: checkpoint removed (braid gc removed the copy Braid kept of it), so it is left as it is'] }),
    'Undid the rewind: 1 turn is back. Left alone: a.txt: checkpoint removed (braid gc removed the copy Braid kept of it), so it is left as it is.',
  );
  assert.equal(undoneNote({ turns: 2, files: [] }), 'Undid the rewind: 2 turns are back.');
  assert.equal(undoneNote({ turns: 0, files: ['a'] }), 'Undid the rewind: 1 file is back.');
  for (const text of [rewindQuestion(preview(1)), rewoundNote(result(1, ['a']), true), undoneNote({ turns: 1, files: ['a'] })])
    assert.doesNotMatch(text, /\(s\)/);
});

test('the rewind dialog says how many of its turns were pulled from another machine, and only then', () => {
  assert.equal(pulledTurnsNote(preview(2)), undefined);
  assert.equal(
    pulledTurnsNote({ pulledTurns: 1 }),
    '1 turn of these was pulled from another machine: its file changes were made there, not here, so only the conversation is rewound there.',
  );
  assert.match(pulledTurnsNote({ pulledTurns: 2 }) ?? '', /^2 turns of these were pulled from another machine: their file changes/);
});

test('a fork that left the running turn out says how many turns it holds, in proper numbers', () => {
  const fork = (turnCount: number) => ({ turnCount, leftOutTurn: turnCount + 1 }) as ForkedSession;
  assert.equal(leftOutNote(fork(1)), 'turn 2 was still running, so the fork leaves it out and holds the 1 turn that had ended');
  assert.equal(leftOutNote(fork(2)), 'turn 3 was still running, so the fork leaves it out and holds the 2 turns that had ended');
  assert.equal(leftOutNote(fork(0)), 'turn 1 was still running, so the fork leaves it out and holds no turn yet');
});

test("the Changes list's Undo says which files it undid, and which it left alone", () => {
  assert.equal(changesUndoneNote(['a.md']), "Undid Braid's changes to a.md.");
  assert.equal(changesUndoneNote(['a.md', 'b.md']), "Undid Braid's changes to 2 files: a.md, b.md.");
  assert.equal(changesUndoneNote(['a', 'b', 'c', 'd']), "Undid Braid's changes to 4 files: a, b, c, ….");
  assert.equal(leftAloneNote([]), undefined);
  assert.equal(leftAloneNote([{ why: 'a.md changed outside Braid' }]), 'Undo left a file alone: a.md changed outside Braid');
});
