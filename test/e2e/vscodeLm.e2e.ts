import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openStore, repoRoot } from '../support/store';
import { Workbench } from '../support/workbench';

// The vscode.lm adapter in the real VS Code: a test-only extension registers a language model;
// with no braid.provider set, Braid picks it, streams its text and runs the tool calls it makes.
let workbench: Workbench;

before(async () => {
  workbench = await Workbench.launch({
    name: 'vscode-lm',
    settings: { 'braid.approval.writes': 'ask' },
    files: { 'README.md': 'The README says hello from the workspace.\n' },
    extraExtensions: [path.join(repoRoot, 'test', 'e2e', 'fixtures', 'lm-provider')],
  });
});

after(async () => {
  await workbench?.close();
});

test('with no provider configured, a model VS Code offers answers through vscode.lm', async () => {
  await workbench.openBraid();
  const chat = workbench.chatFrame();
  await chat.locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  await chat.locator('[data-role="model"]', { hasText: 'vscode-lm · braid-test-model' }).waitFor({ timeout: 15_000 });
  await chat.locator('[data-role="input"]').fill('streamed through the adapter');
  await chat.locator('[data-role="input"]').press('Enter');
  await chat.locator('.message.assistant', { hasText: 'Echo: streamed through the adapter' }).waitFor({ timeout: 15_000 });
  await chat.locator('.turn-status[data-outcome="completed"]').last().waitFor();
  // The session is named from its first prompt, in the tree too.
  await workbench.page.locator('.monaco-list-row', { hasText: 'streamed through the adapter' }).waitFor({ timeout: 5_000 });
  await workbench.screenshot('lm-answer');
});

test('tool calls from a vscode.lm model run, and their results go back to it', async () => {
  const chat = workbench.chatFrame();
  await chat.locator('[data-role="input"]').fill('please use a tool to read the readme');
  await chat.locator('[data-role="input"]').press('Enter');
  await chat.locator('.message.assistant', { hasText: 'Tool said:' }).waitFor({ timeout: 15_000 });
  assert.match((await chat.locator('.message.assistant', { hasText: 'Tool said:' }).textContent()) ?? '', /The README says hello from the workspace/);
  assert.match((await chat.locator('.tool').last().textContent()) ?? '', /read_file README\.md/);
  await workbench.screenshot('lm-tool-call');
  const sessionId = await chat.locator('body').getAttribute('data-session');
  const store = await openStore(workbench.globalStorage);
  const usage = store.history(sessionId!).calls.map((c) => c.record);
  const state = store.get(sessionId!);
  await store.close();
  assert.equal(state.model?.provider, 'vscode-lm');
  assert.equal(state.model?.id, 'braid-test-model');
  assert.ok(usage.length >= 3 && usage.every((u) => u.provider === 'vscode-lm' && u.input > 0), "tokens counted with the model's tokenizer");
});
