import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// `/sessions <query>` in the chat: VS Code's session quick pick opens with the query typed in,
// only the sessions matching it listed; the one picked opens in the chat.
const model = new ScriptedModelServer();
let workbench: Workbench;
const chat = () => workbench.chatFrame();
const input = () => chat().locator('[data-role="input"]');

before(async () => {
  const baseUrl = await model.start();
  workbench = await Workbench.launch({
    name: 'sessions-slash',
    settings: { 'braid.provider': 'openai-compatible', 'braid.model': 'scripted-model', 'braid.baseUrl': baseUrl },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

test('/sessions word opens the quick pick searching for word; picking a session opens it in the chat', async () => {
  model.enqueue({ kind: 'text', chunks: ['Tuned.'] });
  await workbench.send('Tune the zephyrine cache');
  const tuned = await chat().locator('body').getAttribute('data-session');
  await workbench.newSession();
  model.enqueue({ kind: 'text', chunks: ['Written.'] });
  await workbench.send('Write the release notes');
  const notes = await chat().locator('body').getAttribute('data-session');
  assert.ok(tuned && notes && tuned !== notes);

  await input().fill('/sessions zephyrine');
  await input().press('Enter');
  const box = workbench.page.locator('.quick-input-widget input');
  await box.waitFor({ timeout: 10_000 });
  assert.equal(await box.inputValue(), 'zephyrine', 'the query is typed in');
  const rows = workbench.page.locator('.quick-input-list .monaco-list-row');
  await rows.filter({ hasText: 'Tune the zephyrine cache' }).waitFor({ timeout: 5_000 });
  assert.equal(await rows.count(), 1, 'only the matching session is offered');
  await workbench.screenshot('sessions-slash-quick-pick');
  await box.press('Enter');
  await chat().locator(`body[data-session="${tuned}"]`).waitFor({ timeout: 10_000 });
  await chat().locator('.message.assistant', { hasText: 'Tuned.' }).first().waitFor({ timeout: 5_000 });
  await workbench.screenshot('sessions-slash-opened');
});
