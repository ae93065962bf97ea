import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { importSources, realImportSources } from '../support/importFixtures';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// Braid: Import Sessions… in the real VS Code: the picker lists the Claude Code and Codex sessions
// found in their folders (CLAUDE_CONFIG_DIR and CODEX_HOME, as the tools read them), the import
// runs with a progress notification, the sessions and the fork of a branch appear in the Sessions
// tree, one opens in the Chat view with its history and goes on with a new turn, a rewind's
// dialog says the imported turns' files have no checkpoints, and the context Codex put in its
// conversation (a session Codex 0.17 wrote itself) shows as collapsed lines, not as prompts.
const model = new ScriptedModelServer();
let workbench: Workbench;
const claudeHome = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-claude-home-'));
const codexHome = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-codex-home-'));

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'import-sessions',
    settings: model.vscodeSettings(),
    files: { 'notes.md': 'one\ntwo\n' },
    env: { CLAUDE_CONFIG_DIR: claudeHome, CODEX_HOME: codexHome },
  });
  // Claude Code's folder of sessions, recorded in this window's workspace folder.
  const sources = importSources(workbench.workspace);
  fs.cpSync(path.join(sources.sources, 'claude-code'), path.join(claudeHome, 'projects'), { recursive: true });
  sources.cleanup();
  // Codex's, as Codex 0.17 wrote them (a thread and its subagent's), recorded here too.
  const real = await realImportSources(workbench.workspace);
  fs.cpSync(path.join(real.sources, 'codex', 'sessions'), path.join(codexHome, 'sessions'), { recursive: true });
  real.cleanup();
});

after(async () => {
  await workbench?.close();
  await model.close();
  fs.rmSync(claudeHome, { recursive: true, force: true });
  fs.rmSync(codexHome, { recursive: true, force: true });
});

const page = () => workbench.page;
const row = (text: string) => page().locator('.part.sidebar .monaco-list-row', { hasText: text }).first();

test('Import Sessions… lists the Claude Code and Codex sessions found, imports them and opens one that goes on', async () => {
  await workbench.openChat();
  await workbench.runCommand('Braid: Import Sessions…');
  const item = page().locator('.quick-input-list .monaco-list-row', { hasText: 'Claude Code' });
  await item.waitFor({ timeout: 10_000 });
  assert.match((await item.textContent()) ?? '', /1 session\b/);
  assert.match((await page().locator('.quick-input-list .monaco-list-row', { hasText: 'Codex' }).textContent()) ?? '', /2 sessions/);
  await workbench.screenshot('picker');
  await page().locator('.quick-input-widget input').press('Enter');
  const toast = page().locator('.notification-toast', { hasText: 'Imported 2 sessions' });
  await toast.waitFor({ timeout: 30_000 });
  assert.match((await toast.textContent()) ?? '', /2 in this workspace/);
  await row('Notes and TODOs').waitFor({ timeout: 10_000 });
  await row('Notes and TODOs (other branch)').waitFor({ timeout: 10_000 });
  await workbench.screenshot('imported');

  // The latest by the sessions' own times: Codex's (recorded today), not Claude Code's (March).
  await toast.locator('a.monaco-button', { hasText: 'Open Latest' }).click();
  const chat = workbench.chatFrame();
  await chat.locator('[data-role="title"]', { hasText: 'Look around this project, run the word count' }).waitFor({ timeout: 10_000 });
  await row('Notes and TODOs').click();
  await chat.locator('[data-role="title"]', { hasText: 'Notes and TODOs' }).waitFor({ timeout: 10_000 });
  await chat.getByText('The subagent found one TODO.').waitFor({ timeout: 10_000 });
  // The status bar names the model the header does (the next prompt's), not the one Claude Code used.
  const header = (await chat.locator('[data-role="model"]').textContent()) ?? '';
  const status = page().locator('.part.statusbar .statusbar-item', { hasText: 'Notes and TODOs' });
  await status.waitFor({ timeout: 10_000 });
  assert.match(header, / · scripted-model\b/);
  assert.match((await status.textContent()) ?? '', /Notes and TODOs · scripted-model · /);
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

test('a session Codex wrote: its title is the prompt typed, and the context Codex added shows collapsed', async () => {
  await row('Look around this project, run the word count').click();
  const chat = workbench.chatFrame();
  await chat.locator('[data-role="title"]', { hasText: 'Look around this project, run the word count' }).waitFor({ timeout: 10_000 });
  const context = chat.locator('details.injected-context', { hasText: 'Context Codex added: agents-md' });
  await context.waitFor({ timeout: 10_000 });
  assert.equal(await context.evaluate((d) => (d as HTMLDetailsElement).open), false, 'collapsed until opened');
  assert.equal(await chat.locator('.message.user', { hasText: '<environment_context>' }).count(), 0, 'never shown as a prompt');
  await chat.locator('.message.user', { hasText: 'Look around this project, run the word count' }).first().waitFor();
  await context.locator('summary').click();
  await context.locator('pre', { hasText: '# AGENTS.md instructions' }).waitFor({ timeout: 5_000 });
  await workbench.screenshot('codex-context');
});
