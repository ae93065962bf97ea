import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { MemoryRecord } from '../../src/core/wire/records';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// The session memory in the real VS Code: /remember has the model write it and opens it as a
// document; an edit saved there becomes the user's memory, and the next prompt tells the model.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  const baseUrl = await model.start();
  workbench = await Workbench.launch({
    name: 'sessionMemory',
    settings: { 'braid.provider': 'openai-compatible', 'braid.model': 'scripted-model', 'braid.baseUrl': baseUrl },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

test("/remember shows the memory the model wrote; saving an edit of it writes the user's memory, which the next prompt carries", async () => {
  const chat = workbench.chatFrame();
  model.enqueue({ kind: 'text', chunks: ['Noted: SQLite, and tabs.'] });
  await workbench.send('We store the index in SQLite, and indent with tabs.');
  model.enqueue({ kind: 'text', chunks: ['- decision: the index is stored in SQLite\n- preference: indent with tabs'] });
  await chat.locator('[data-role="input"]').fill('/remember');
  await chat.locator('[data-role="input"]').press('Enter');
  const editor = workbench.page.locator('.editor-instance .view-lines');
  await editor.filter({ hasText: 'decision: the index is stored in SQLite' }).waitFor({ timeout: 20_000 });
  assert.match(JSON.stringify(model.requests.at(-1)!.body), /You keep the memory of a coding session/);
  await workbench.screenshot('session-memory-document');

  // Edit it as the user: a new fact at the end, then save.
  await workbench.page.locator('.editor-instance .view-lines').click();
  await workbench.page.keyboard.press('Control+End');
  await workbench.page.keyboard.type('\n- constraint: never commit to main');
  await workbench.page.keyboard.press('Control+S');
  let saved: MemoryRecord | undefined;
  for (let i = 0; i < 100 && saved?.by !== 'user'; i++) {
    saved = (await workbench.shownSessionRecords()).filter((r): r is MemoryRecord => r.t === 'memory').at(-1);
    if (saved?.by !== 'user') await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(saved?.by, 'user');
  assert.deepEqual(saved?.facts.at(-1), { kind: 'constraint', text: 'never commit to main' });
  await workbench.screenshot('session-memory-saved');

  model.enqueue({ kind: 'text', chunks: ['Understood.'] });
  await workbench.send('Go on.');
  assert.match(JSON.stringify(model.requests.at(-1)!.body.messages), /The user edited the session memory[^"]*never commit to main/);
});
