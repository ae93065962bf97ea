import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../support/store';
import { Workbench } from '../support/workbench';

// VS Code's own tools in the real VS Code: a test-only extension registers a language model and a
// tool (braid_test_echo); the user chose that tool in braid.vscodeTools, so Braid offers it to
// the model as vscode__braid_test_echo, asks before the call, and calls it through vscode.lm.invokeTool.
let workbench: Workbench;

before(async () => {
  workbench = await Workbench.launch({
    name: 'vscode-tools',
    settings: { 'braid.vscodeTools': ['braid_test_echo'] },
    files: { 'README.md': 'A workspace.\n' },
    extraExtensions: [path.join(repoRoot, 'test', 'e2e', 'fixtures', 'lm-provider')],
  });
});

after(async () => {
  await workbench?.close();
});

test('a VS Code tool the user chose is offered, asks for approval, and its result goes back to the model', async () => {
  await workbench.openBraid();
  const chat = workbench.chatFrame();
  await chat.locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  await chat.locator('[data-role="model"]', { hasText: 'braid-test-model' }).waitFor({ timeout: 15_000 });
  await chat.locator('[data-role="input"]').fill('please use the vscode tool');
  await chat.locator('[data-role="input"]').press('Enter');
  const approval = chat.locator('.approval');
  await approval.waitFor({ timeout: 20_000 });
  assert.match((await approval.textContent()) ?? '', /Braid wants to call a tool: braid_test_echo \{"text":"hello from the model"\}/);
  await workbench.screenshot('vscode-tool-approval');
  await approval.locator('button', { hasText: /^Allow$/ }).click();
  await chat.locator('.message.assistant', { hasText: 'Tool said:' }).waitFor({ timeout: 20_000 });
  assert.match((await chat.locator('.message.assistant', { hasText: 'Tool said:' }).textContent()) ?? '', /Tool said: echo: hello from the model/);
});
