import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { readFileReply, ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// Fork from the tree's context menu (the fork nests under its source) and rewind with files from
// the palette: the file comes back and the prompt returns to the input for edit & resend.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  const baseUrl = await model.start();
  workbench = await Workbench.launch({
    name: 'fork-rewind',
    settings: { 'braid.provider': 'openai-compatible', 'braid.model': 'scripted-model', 'braid.baseUrl': baseUrl, 'braid.approval.writes': 'allow' },
    files: { 'notes.md': 'original notes\n' },
  });
});

after(async () => {
  await workbench?.close();
  await model.close();
});

async function send(text: string): Promise<void> {
  await workbench.send(text);
}

test('fork from the tree context menu nests the fork under its source and opens it', async () => {
  await workbench.openChat();
  model.enqueue({ kind: 'text', chunks: ['First answer.'] });
  await send('Plan the notes');
  model.enqueue(
    readFileReply('notes.md'),
    { kind: 'toolCalls', calls: [{ id: 'w', name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content: 'rewritten by the agent\n' }) }] },
    { kind: 'text', chunks: ['Rewrote the notes.'] },
  );
  await send('Rewrite the notes');
  assert.equal(fs.readFileSync(path.join(workbench.workspace, 'notes.md'), 'utf8'), 'rewritten by the agent\n');

  const page = workbench.page;
  const source = page.locator('.monaco-list-row', { hasText: 'Plan the notes' }).first();
  await source.waitFor({ timeout: 5_000 });
  await workbench.pickContextMenuItem(source, 'Fork Session', 'context-menu');
  const fork = page.locator('.monaco-list-row', { hasText: 'Fork of Plan the notes' });
  await fork.waitFor({ timeout: 5_000 });
  assert.equal(await fork.getAttribute('aria-level'), '2', 'the fork is nested under its source');
  assert.equal(await fork.locator('.codicon-repo-forked').count(), 1, 'a fork has an icon of its own');
  await workbench.chatFrame().locator('.message.user', { hasText: 'Rewrite the notes' }).waitFor();
  await workbench.screenshot('fork-nested');
});

test('rewind with files from the palette restores the file and puts the prompt back in the input', async () => {
  await workbench.page.locator('.monaco-list-row', { hasText: 'Plan the notes' }).first().click();
  await workbench.chatFrame().locator('.message.user', { hasText: 'Rewrite the notes' }).waitFor();
  // The fork showed the same prompt: wait until the Chat view has switched to the source itself.
  await workbench
    .chatFrame()
    .locator('[data-role="title"]', { hasText: /^Plan the notes$/ })
    .waitFor();
  await workbench.runCommand('Braid: Rewind...');
  const page = workbench.page;
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Turn 2' }).click();
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor();
  assert.match((await dialog.textContent()) ?? '', /restore notes\.md/);
  await workbench.screenshot('rewind-preview');
  await dialog.locator('.monaco-button', { hasText: 'Rewind and Restore Files' }).click();
  const chat = workbench.chatFrame();
  // The prompt comes back in the input once the rewind is done.
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    if ((await chat.locator('[data-role="input"]').inputValue()) === 'Rewrite the notes') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(await chat.locator('[data-role="input"]').inputValue(), 'Rewrite the notes');
  assert.equal(fs.readFileSync(path.join(workbench.workspace, 'notes.md'), 'utf8'), 'original notes\n');
  assert.equal(await chat.locator('.message.user', { hasText: 'Rewrite the notes' }).count(), 0, 'the rewound prompt left the transcript');
  await workbench.screenshot('rewound');
  // Edit & resend.
  model.enqueue({ kind: 'text', chunks: ['Rewritten, differently.'] });
  await chat.locator('[data-role="input"]').fill('Rewrite the notes, but shorter');
  await chat.locator('[data-role="input"]').press('Enter');
  await chat.locator('.message.assistant', { hasText: 'Rewritten, differently.' }).waitFor({ timeout: 15_000 });
  await workbench.screenshot('edited-and-resent');
});

test('per-message actions: fork from here, and edit & resend', async () => {
  const chat = workbench.chatFrame();
  const first = chat.locator('.message.user', { hasText: 'Plan the notes' }).first();
  await first.hover();
  await first.locator('.message-actions button', { hasText: 'Fork' }).click();
  const page = workbench.page;
  await chat.locator('body[data-session]').waitFor();
  // The fork keeps turn 1 only and opens; the tree has a second fork under the source, which says where it was cut.
  await page.locator('.monaco-list-row', { hasText: 'Fork at turn 1 of Plan the notes' }).waitFor({ timeout: 5_000 });
  await chat.locator('.message.user', { hasText: 'Plan the notes' }).waitFor();
  assert.equal(await chat.locator('.message.user').count(), 1);
  await workbench.screenshot('forked-from-message');

  const prompt = chat.locator('.message.user', { hasText: 'Plan the notes' }).first();
  await prompt.hover();
  await prompt.locator('.message-actions button', { hasText: 'Edit' }).click();
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor();
  await dialog.locator('.monaco-button', { hasText: /^Rewind$/ }).click();
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    if ((await chat.locator('[data-role="input"]').inputValue()) === 'Plan the notes') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(await chat.locator('[data-role="input"]').inputValue(), 'Plan the notes');
  assert.equal(await chat.locator('.message.user').count(), 0);
  await workbench.screenshot('edit-and-resend-from-message');
});

test('fork from the palette: the fork is revealed and selected under a collapsed source, says so with Open Source, and two forks read differently', async () => {
  const page = workbench.page;
  const row = (text: string | RegExp) => page.locator('.part.sidebar .monaco-list-row', { hasText: text }).first();
  // Back to the source, its forks folded away under it.
  await row('Plan the notes').click();
  await workbench
    .chatFrame()
    .locator('[data-role="title"]', { hasText: /^Plan the notes$/ })
    .waitFor();
  const source = await workbench.chatFrame().locator('body[data-session]').getAttribute('data-session');
  await row('Plan the notes').locator('.monaco-tl-twistie').click();
  await row('Fork of Plan the notes').waitFor({ state: 'detached', timeout: 5_000 });
  await workbench.screenshot('source-collapsed');
  // The toasts of the forks above go first, so the one asserted is this fork's.
  await workbench.runCommand('Notifications: Clear All Notifications');
  // The user is elsewhere (the Explorer): the fork brings the Braid views back and shows itself.
  await workbench.runCommand('View: Show Explorer');
  await row('Plan the notes').waitFor({ state: 'hidden', timeout: 5_000 });

  await workbench.runCommand('Braid: Fork Session');
  const fork = row('Fork 2 of Plan the notes');
  await fork.waitFor({ timeout: 10_000 });
  const toast = page.locator('.notification-toast', { hasText: 'Forked "Plan the notes".' });
  await toast.waitFor({ timeout: 5_000 });
  for (const deadline = Date.now() + 5_000; Date.now() < deadline && (await fork.getAttribute('aria-selected')) !== 'true';)
    await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await fork.getAttribute('aria-selected'), 'true', 'the new fork is selected');
  assert.equal(await fork.getAttribute('aria-level'), '2', 'under its source, which was unfolded');
  await workbench.chatFrame().locator('[data-role="title"]', { hasText: 'Fork 2 of Plan the notes' }).waitFor();
  await workbench.screenshot('forked-from-palette-revealed');

  // Open Source goes back to the source; a fork at a turn that has a fork already is numbered too,
  // and is revealed under its workspace when the tree shows every workspace.
  await toast.locator('.monaco-button', { hasText: 'Open Source' }).click();
  await workbench.chatFrame().locator(`body[data-session="${source}"]`).waitFor({ timeout: 10_000 });
  await workbench.runCommand('Braid: Show All Workspaces');
  await row(/this workspace/).waitFor({ timeout: 5_000 });
  await row(/this workspace/)
    .locator('.monaco-tl-twistie')
    .click();
  await row('Plan the notes').waitFor({ state: 'detached', timeout: 5_000 });
  await workbench.runCommand('Braid: Fork at Turn...');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Turn 1' }).click();
  const atTurn = row('Fork 2 at turn 1 of Plan the notes');
  await atTurn.waitFor({ timeout: 10_000 });
  for (const deadline = Date.now() + 5_000; Date.now() < deadline && (await atTurn.getAttribute('aria-selected')) !== 'true';)
    await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await atTurn.getAttribute('aria-selected'), 'true');
  assert.equal(await atTurn.getAttribute('aria-level'), '3', 'workspace, source, fork');
  await page.locator('.notification-toast', { hasText: 'Forked "Plan the notes" at turn 1.' }).waitFor({ timeout: 5_000 });
  await workbench.screenshot('forked-at-turn-numbered');
});
