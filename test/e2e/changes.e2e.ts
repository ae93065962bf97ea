import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { FileChangeRecord, FileReviewRecord } from '../../src/core/wire/records';
import { readFileReply, ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// The Changes list in the real VS Code: the files the last turn and the session changed, a file's
// change in the diff editor, Keep and Undo per file and Undo All, and the records they leave.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'changes',
    settings: model.vscodeSettings(),
    files: { 'plan.md': '# Plan\n- draft\n', 'notes.md': 'notes\n' },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const chat = () => workbench.chatFrame();
const file = (name: string) => path.join(workbench.workspace, name);
const read = (name: string) => (fs.existsSync(file(name)) ? fs.readFileSync(file(name), 'utf8') : null);
const rows = () => chat().locator('[data-role="changes"] .change');
const row = (name: string) => chat().locator('[data-role="changes"] .change', { hasText: name });
const writes = (id: string, files: Record<string, string>) => ({
  kind: 'toolCalls' as const,
  calls: Object.entries(files).map(([p, content], i) => ({ id: `${id}-${i}`, name: 'write_file', arguments: JSON.stringify({ path: p, content }) })),
});

test('after two turns the list shows the last turn’s files, or the session’s, with their line counts', async () => {
  // Auto-accept edits: the writes need no approval, which is not what this spec is about.
  await chat().locator('[data-role="mode"]').selectOption({ label: 'Auto-accept edits' });
  model.enqueue(readFileReply('plan.md'), writes('t1', { 'plan.md': '# Plan\n- draft\n- ship\n', 'todo.md': '- one\n- two\n' }), {
    kind: 'text',
    chunks: ['Planned.'],
  });
  await workbench.send('Extend the plan and start a todo list');
  model.enqueue(readFileReply('notes.md'), writes('t2', { 'notes.md': 'better notes\n' }), { kind: 'text', chunks: ['Rewrote the notes.'] });
  await workbench.send('Improve the notes');

  const panel = chat().locator('[data-role="changes"]');
  await panel.waitFor();
  await chat().locator('[data-role="changes"] [data-scope="turn"]').click();
  assert.deepEqual(await rows().locator('.change-path').allTextContents(), ['notes.md']);
  assert.match((await panel.locator('.changes-title').textContent()) ?? '', /Changes · 1 file/);
  await workbench.screenshot('changes-this-turn');
  await chat().locator('[data-role="changes"] [data-scope="session"]').click();
  assert.deepEqual(await rows().locator('.change-path').allTextContents(), ['plan.md', 'todo.md', 'notes.md']);
  assert.equal(await row('plan.md').locator('.change-lines').textContent(), '+1 \u22120');
  assert.equal(await row('todo.md').locator('.change-status').textContent(), 'A');
  await workbench.screenshot('changes-session');
});

test("a file's name opens its change in the diff editor: as the session found it, against the workspace file", async () => {
  await row('plan.md').locator('.change-name').click();
  const tab = workbench.page.locator('.tab', { hasText: "plan.md (Braid's changes in this session)" });
  await tab.waitFor({ timeout: 15_000 });
  // The added line shows on the right, the workspace file's side.
  await workbench.page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: '- ship' }).waitFor({ timeout: 15_000 });
  await workbench.page.locator('.monaco-diff-editor .editor.original .view-line', { hasText: '- draft' }).waitFor({ timeout: 15_000 });
  await workbench.screenshot('change-diff-editor', 'changes-list');
  await workbench.runCommand('View: Close All Editors');
});

test('Undo restores exactly that file; Keep takes a file off the list; Undo All restores the rest, and the log records each', async () => {
  await row('todo.md').locator('[data-action="undo"]').click();
  await row('todo.md').waitFor({ state: 'detached', timeout: 10_000 });
  assert.equal(read('todo.md'), null, 'a file the session created is removed');
  assert.equal(read('plan.md'), '# Plan\n- draft\n- ship\n', 'the other files are untouched');

  // The Undo says what it did, with an Undo of its own, as a rewind does: it brings the file back.
  const toast = workbench.page.locator('.notification-toast', { hasText: "Undid Braid's changes to todo.md." });
  await toast.waitFor({ timeout: 10_000 });
  await workbench.screenshot('changes-undo-toast');
  await toast.locator('.monaco-button', { hasText: 'Undo' }).click();
  await row('todo.md').waitFor({ timeout: 10_000 });
  assert.equal(read('todo.md'), '- one\n- two\n', "the toast's Undo gives the file back");
  assert.deepEqual(await rows().locator('.change-path').allTextContents(), ['plan.md', 'todo.md', 'notes.md'], 'listed as before');
  await row('todo.md').locator('[data-action="undo"]').click();
  await row('todo.md').waitFor({ state: 'detached', timeout: 10_000 });
  assert.equal(read('todo.md'), null);

  await row('notes.md').locator('[data-action="keep"]').click();
  await row('notes.md').waitFor({ state: 'detached', timeout: 10_000 });
  assert.equal(read('notes.md'), 'better notes\n', 'Keep leaves the file as it is');
  await workbench.screenshot('changes-after-undo-and-keep');
  // The last turn's one file was kept: its list says nothing is left to review.
  await chat().locator('[data-role="changes"] [data-scope="turn"]').click();
  assert.equal(await chat().locator('[data-role="changes"] .changes-empty').textContent(), 'Nothing left to review from the last turn.');
  await workbench.screenshot('changes-turn-empty');
  await chat().locator('[data-role="changes"] [data-scope="session"]').click();

  await chat().locator('[data-role="changes-undo-all"]').click();
  await chat().locator('[data-role="changes"]').waitFor({ state: 'hidden', timeout: 10_000 });
  assert.equal(read('plan.md'), '# Plan\n- draft\n');
  assert.equal(read('notes.md'), 'better notes\n', 'a kept file stays as kept');

  const records = await workbench.shownSessionRecords();
  const changes = records.filter((r) => r.t === 'file_change') as FileChangeRecord[];
  const undone = changes.filter((r) => r.toolCallId.startsWith('undo_')).map((r) => r.path);
  assert.deepEqual(undone, ['todo.md', 'todo.md', 'plan.md']);
  assert.deepEqual(
    changes.filter((r) => r.toolCallId.startsWith('redo_')).map((r) => r.path),
    ['todo.md'],
    "the toast's Undo of the Undo",
  );
  const kept = (records.filter((r) => r.t === 'file_review') as FileReviewRecord[]).map((r) => r.path);
  assert.deepEqual(kept, ['notes.md']);
  await workbench.screenshot('changes-all-undone');
});

test("the chat's own Undo of a rewind takes the rewind's notification off the screen", async () => {
  const prompt = chat().locator('.message.user', { hasText: 'Improve the notes' });
  await prompt.hover();
  await prompt.locator('.message-actions button', { hasText: 'Rewind' }).click();
  const dialog = workbench.page.locator('.monaco-dialog-box');
  await dialog.waitFor();
  await dialog.locator('.monaco-button', { hasText: /^Rewind( Conversation Only)?$/ }).click();
  const toast = workbench.page.locator('.notification-toast', { hasText: 'Rewound 1 turn' });
  await toast.waitFor({ timeout: 10_000 });
  await chat().locator('[data-role="rewound"]').waitFor();
  await workbench.screenshot('rewind-toast-and-bar');
  await chat().locator('[data-role="undo-rewind"]').click();
  await chat().locator('.message.user', { hasText: 'Improve the notes' }).waitFor({ timeout: 10_000 });
  await toast.waitFor({ state: 'hidden', timeout: 5_000 });
  await workbench.page.locator('.notification-toast', { hasText: 'Undid the rewind' }).waitFor({ timeout: 5_000 });
  await workbench.screenshot('rewind-undone-toast-gone');
});
