import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { gitIn } from '../support/gitRepo';
import { readFileReply, ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// Fork into a worktree from the tree, open the worktree's folder in a new window, edit and rewind
// there (the checkout untouched), then finish by merging from the checkout's window.
const model = new ScriptedModelServer();
let workbench: Workbench;
let worktreeWindow: Workbench | undefined;

const read = (...parts: string[]) => fs.readFileSync(path.join(...parts), 'utf8');
const writeNotes = (id: string, content: string) => ({
  kind: 'toolCalls' as const,
  calls: [{ id, name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content }) }],
});

before(async () => {
  const baseUrl = await model.start();
  workbench = await Workbench.launch({
    name: 'worktree-fork',
    settings: { 'braid.provider': 'openai-compatible', 'braid.model': 'scripted-model', 'braid.baseUrl': baseUrl, 'braid.approval.writes': 'allow' },
    files: { 'notes.md': 'original notes\n' },
    repository: true,
  });
});

after(async () => {
  await worktreeWindow?.close();
  await workbench?.close();
  await model.close();
});

const worktree = () => path.join(`${fs.realpathSync(workbench.workspace)}.worktrees`, 'rewrite-the-notes');
const row = (bench: Workbench, text: string | RegExp) => bench.page.locator('.part.sidebar .monaco-list-row', { hasText: text }).first();

test('Fork into Worktree from the tree: a branch and a worktree beside the repository, the fork under its source with its branch', async () => {
  await workbench.openChat();
  model.enqueue(readFileReply('notes.md'), writeNotes('w1', 'rewritten in the checkout\n'), { kind: 'text', chunks: ['Rewrote the notes.'] });
  await workbench.send('Rewrite the notes');
  gitIn(workbench.workspace)('commit', '-q', '-am', 'the first turn');

  await workbench.pickContextMenuItem(row(workbench, 'Rewrite the notes'), 'Fork into Worktree', 'context-menu');
  const toast = workbench.page.locator('.notification-toast', { hasText: 'into the worktree' });
  await toast.waitFor({ timeout: 15_000 });
  assert.match((await toast.textContent()) ?? '', /on branch braid\/rewrite-the-notes; it runs there\./);
  const fork = row(workbench, 'Fork of Rewrite the notes');
  await fork.waitFor({ timeout: 10_000 });
  assert.equal(await fork.getAttribute('aria-level'), '2', 'nested under its source');
  assert.match((await fork.textContent()) ?? '', /braid\/rewrite-the-notes/);
  assert.equal(read(worktree(), 'notes.md'), 'rewritten in the checkout\n');
  await workbench.screenshot('forked-into-worktree');

  worktreeWindow = await workbench.newWindow('worktree-window', worktree(), () => toast.locator('.monaco-button', { hasText: 'Open Worktree Folder' }).click());
});

test("in the worktree's window the fork writes and rewinds in the worktree only", async () => {
  const there = worktreeWindow!;
  await there.openChat();
  await row(there, 'Fork of Rewrite the notes').click();
  const chat = there.chatFrame();
  await chat.locator('[data-role="title"]', { hasText: 'Fork of Rewrite the notes' }).waitFor({ timeout: 15_000 });
  const forkId = await chat.locator('body').getAttribute('data-session');
  model.enqueue(writeNotes('w2', 'changed in the worktree\n'), { kind: 'text', chunks: ['Changed them in the worktree.'] });
  await there.send('Change them in the worktree');
  assert.equal(read(worktree(), 'notes.md'), 'changed in the worktree\n');
  assert.equal(read(workbench.workspace, 'notes.md'), 'rewritten in the checkout\n', 'the checkout is untouched');
  await there.screenshot('edited-in-worktree');

  await there.runCommand('Braid: Rewind...');
  await there.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Turn 2' }).click();
  const dialog = there.page.locator('.monaco-dialog-box');
  await dialog.waitFor();
  assert.match((await dialog.textContent()) ?? '', /restore notes\.md/);
  await there.screenshot('rewind-preview');
  await dialog.locator('.monaco-button', { hasText: 'Rewind and Restore Files' }).click();
  await chat.locator('.message.user', { hasText: 'Change them in the worktree' }).waitFor({ state: 'detached', timeout: 10_000 });
  assert.equal(read(worktree(), 'notes.md'), 'rewritten in the checkout\n');
  assert.equal(read(workbench.workspace, 'notes.md'), 'rewritten in the checkout\n');
  await there.screenshot('rewound-in-worktree');

  // The work that stays: written again, and left uncommitted for the moment.
  model.enqueue(writeNotes('w3', 'kept from the worktree\n'), { kind: 'text', chunks: ['Done.'] });
  await chat.locator('[data-role="input"]').fill('Write what we keep');
  await chat.locator('[data-role="input"]').press('Enter');
  await chat.locator('.message.assistant', { hasText: 'Done.' }).waitFor({ timeout: 15_000 });
  await chat.locator('body[data-turn="idle"]').waitFor();
  assert.equal(read(worktree(), 'notes.md'), 'kept from the worktree\n');
  // Another session here lets go of the fork, so the checkout's window can finish it.
  await there.newSession();
  await chat.locator(`body:not([data-session="${forkId}"])`).waitFor({ timeout: 10_000 });
});

test("Finish from the checkout's window: refused while the worktree has uncommitted changes, then merged", async () => {
  const page = workbench.page;
  // The user is done in the worktree's window: closing it leaves the checkout's window in front.
  await worktreeWindow?.close();
  worktreeWindow = undefined;
  await page.bringToFront();
  const fork = row(workbench, 'Fork of Rewrite the notes');
  const finish = async () => {
    // A menu takes no click in the first moments it shows; the item under the mouse takes Enter.
    await (await workbench.contextMenuItem(fork, 'Finish Worktree...')).hover();
    await page.keyboard.press('Enter');
    const merge = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Merge braid/rewrite-the-notes' });
    await merge.waitFor({ timeout: 10_000 });
    await workbench.screenshot('finish-pick');
    await merge.click();
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Keep branch braid/rewrite-the-notes' }).click();
  };
  await finish();
  const refused = page.locator('.notification-toast', { hasText: 'uncommitted change' });
  await refused.waitFor({ timeout: 10_000 });
  assert.match((await refused.textContent()) ?? '', /has 1 uncommitted change \(notes\.md\); commit them there or discard them, then finish/);
  await workbench.screenshot('finish-refused');
  assert.ok(fs.existsSync(worktree()));

  gitIn(worktree())('commit', '-q', '-am', 'the worktree work');
  await workbench.runCommand('Notifications: Clear All Notifications');
  await finish();
  const merged = page.locator('.notification-toast', { hasText: 'Merged 1 commit of braid/rewrite-the-notes' });
  await merged.waitFor({ timeout: 15_000 });
  assert.equal(read(workbench.workspace, 'notes.md'), 'kept from the worktree\n');
  assert.equal(fs.existsSync(worktree()), false, 'the worktree is removed');
  await fork.filter({ hasText: '(finished: merge)' }).waitFor({ timeout: 10_000 });
  await workbench.screenshot('finished-merged');
});

test("a prompt's Worktree action forks into a worktree up to its turn", async () => {
  const chat = workbench.chatFrame();
  const prompt = chat.locator('.message.user', { hasText: 'Rewrite the notes' }).first();
  await prompt.hover();
  await prompt.locator('.message-actions button[aria-label^="Fork into a git worktree"]').click();
  const toast = workbench.page.locator('.notification-toast', { hasText: 'at turn 1 into the worktree' });
  await toast.waitFor({ timeout: 15_000 });
  // The first worktree's branch was kept, so this one is numbered.
  assert.match((await toast.textContent()) ?? '', /on branch braid\/rewrite-the-notes-2; it runs there\./);
  const fork = row(workbench, 'Fork at turn 1 of Rewrite the notes');
  await fork.waitFor({ timeout: 10_000 });
  assert.equal(await fork.getAttribute('aria-level'), '2');
  assert.equal(read(`${worktree()}-2`, 'notes.md'), 'kept from the worktree\n', 'from HEAD, which has the merged work');
  await workbench.screenshot('forked-from-message');
});
