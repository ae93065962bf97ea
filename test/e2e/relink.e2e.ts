import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// A session's folder moved on disk: reopened there, the window offers to re-link its sessions,
// and the re-linked session goes on.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  const baseUrl = await model.start();
  workbench = await Workbench.launch({
    name: 'relink',
    settings: { 'braid.provider': 'openai-compatible', 'braid.model': 'scripted-model', 'braid.baseUrl': baseUrl, 'braid.approval.writes': 'allow' },
    files: { 'README.md': '# Project\n' },
  });
});

after(async () => {
  await workbench?.close();
  await model.close();
});

test('move the workspace folder, reopen it, re-link its session and continue it', async () => {
  await workbench.openChat();
  model.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'w', name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content: 'notes before the move\n' }) }] },
    { kind: 'text', chunks: ['Wrote the notes.'] },
  );
  await workbench.send('Write the notes');
  const id = await workbench.chatFrame().locator('body').getAttribute('data-session');

  // The folder moves to another parent while the window is closed, and is opened there.
  const moved = path.join(path.dirname(workbench.workspace), 'moved', 'workspace');
  const url = new URL(workbench.page.url());
  await workbench.page.goto('about:blank');
  fs.mkdirSync(path.dirname(moved));
  fs.renameSync(workbench.workspace, moved);
  url.searchParams.set('folder', moved);
  await workbench.page.goto(url.toString());
  await workbench.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await workbench.openBraid();

  const offer = workbench.page.locator('.notification-toast', { hasText: `Re-link 1 session from ${workbench.workspace}?` });
  await offer.waitFor({ timeout: 30_000 });
  await workbench.screenshot('relink-offer');
  await offer.locator('.monaco-button', { hasText: 'Re-link' }).click();
  await workbench.page.locator('.notification-toast', { hasText: `Re-linked 1 session from ${workbench.workspace}.` }).waitFor({ timeout: 10_000 });
  const row = workbench.page.locator('.part.sidebar .monaco-list-row', { hasText: 'Write the notes' }).first();
  await row.waitFor({ timeout: 10_000 });
  await workbench.screenshot('relinked');

  await row.click();
  const chat = workbench.chatFrame();
  await chat.locator(`body[data-session="${id}"][data-read-only="false"]`).waitFor({ timeout: 15_000 });
  model.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'w2', name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content: 'notes after the move\n' }) }] },
    { kind: 'text', chunks: ['Updated them here.'] },
  );
  await workbench.send('Update the notes');
  assert.equal(fs.readFileSync(path.join(moved, 'notes.md'), 'utf8'), 'notes after the move\n');
  await workbench.screenshot('continued-after-move');
});
