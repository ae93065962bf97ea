import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { importSources } from '../support/importFixtures';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// Braid: Import Sessions… in the real VS Code: the picker lists the Claude Code sessions found in
// their folder (CLAUDE_CONFIG_DIR, as Claude Code reads it), the import runs with a progress
// notification, the session and the fork of its other branch appear in the Sessions tree, it
// opens in the Chat view with its history, goes on with a new turn, and a rewind's dialog says
// the imported turns' files have no checkpoints.
const model = new ScriptedModelServer();
let workbench: Workbench;
const claudeHome = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-claude-home-'));

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'import-sessions',
    settings: model.vscodeSettings(),
    files: { 'notes.md': 'one\ntwo\n' },
    env: { CLAUDE_CONFIG_DIR: claudeHome },
  });
  // Claude Code's folder of sessions, recorded in this window's workspace folder.
  const sources = importSources(workbench.workspace);
  fs.cpSync(path.join(sources.sources, 'claude-code'), path.join(claudeHome, 'projects'), { recursive: true });
  sources.cleanup();
});

after(async () => {
  await workbench?.close();
  await model.close();
  fs.rmSync(claudeHome, { recursive: true, force: true });
});

const page = () => workbench.page;
const row = (text: string) => page().locator('.part.sidebar .monaco-list-row', { hasText: text }).first();

test('Import Sessions… lists the Claude Code sessions found, imports them and opens one that goes on', async () => {
  await workbench.openChat();
  await workbench.runCommand('Braid: Import Sessions…');
  const item = page().locator('.quick-input-list .monaco-list-row', { hasText: 'Claude Code' });
  await item.waitFor({ timeout: 10_000 });
  assert.match((await item.textContent()) ?? '', /1 session file/);
  await workbench.screenshot('picker');
  await page().locator('.quick-input-widget input').press('Enter');
  const toast = page().locator('.notification-toast', { hasText: 'Imported 1 session' });
  await toast.waitFor({ timeout: 30_000 });
  assert.match((await toast.textContent()) ?? '', /1 in this workspace/);
  await row('Notes and TODOs').waitFor({ timeout: 10_000 });
  await row('Notes and TODOs (other branch)').waitFor({ timeout: 10_000 });
  await workbench.screenshot('imported');

  await toast.locator('a.monaco-button', { hasText: 'Open Latest' }).click();
  const chat = workbench.chatFrame();
  await chat.locator('[data-role="title"]', { hasText: 'Notes and TODOs' }).waitFor({ timeout: 10_000 });
  await chat.getByText('The subagent found one TODO.').waitFor({ timeout: 10_000 });
  await workbench.screenshot('opened');

  model.enqueue({ kind: 'text', chunks: ['We counted and edited notes.md, then found one TODO.'] });
  await workbench.send('What did we do so far?');
  const sent = JSON.stringify(model.requests.at(-1)!.body.messages);
  assert.match(sent, /it now says three/, 'the imported compaction summary heads the context');
  assert.match(sent, /The subagent found one TODO/);
  await workbench.screenshot('continued');
});

test('a rewind into the imported turns says their files have no checkpoints', async () => {
  await workbench.runCommand('Braid: Rewind');
  await page().locator('.quick-input-list .monaco-list-row', { hasText: 'Ask a subagent to list the TODOs' }).first().click();
  const dialog = page().locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 10_000 });
  assert.match((await dialog.textContent()) ?? '', /1 turn of these was imported from another agent: Braid has no checkpoints of the files it changed/);
  await workbench.screenshot('rewind-dialog');
  await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
});
