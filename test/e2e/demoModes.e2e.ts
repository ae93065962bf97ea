import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { demoModelServer, demoSettings } from '../support/demoModel';
import { Workbench } from '../support/workbench';

// The demo agent in Plan and Ask, in a real VS Code, and the mode one session has wherever it is
// shown: Plan reads, then writes a numbered plan that Carry Out Plan carries out; Ask answers from
// what it read and never says a command ran; the mode picked in the side view is the editor tab's,
// and the other way round.
const demo = demoModelServer();
let workbench: Workbench;

before(async () => {
  workbench = await Workbench.launch({
    name: 'demo-modes',
    settings: demoSettings(await demo.start()),
    files: { 'hello.txt': 'Hello from Braid!\n', 'package.json': '{\n  "name": "sprocket"\n}\n' },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await demo.close();
});

const side = () => workbench.chatFrame();
const editor = () => workbench.editorChatFrame();
const hello = () => fs.readFileSync(path.join(workbench.workspace, 'hello.txt'), 'utf8');
const lastAnswer = async () => ((await side().locator('.message.assistant').last().textContent()) ?? '').replace(/\s+/g, ' ');

test('in Plan the demo reads, then writes the plan as numbered steps; nothing is tried or refused', async () => {
  await side().locator('[data-role="mode"]').selectOption({ label: 'Plan' });
  await workbench.send('Change "Hello" to "Hi" in hello.txt');
  assert.equal(hello(), 'Hello from Braid!\n');
  const transcript = (await side().locator('[data-role="transcript"]').textContent()) ?? '';
  assert.doesNotMatch(transcript, /may not change files|refused|edit_file/, 'no edit was tried');
  assert.match(transcript, /read_file|hello\.txt/);
  assert.equal(await side().locator('.message.assistant ol li').first().textContent(), 'In hello.txt, change “Hello” to “Hi” on line 1.');
  await side().locator('[data-role="plan"]').waitFor();
  await workbench.screenshot('demo-plan');
});

test('the mode is the session’s: the editor tab shows the side view’s, and a pick there shows in the side view', async () => {
  await workbench.runCommand('Braid: Open Chat in Editor');
  await editor().locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  await side().locator('[data-role="mode"]').selectOption({ label: 'Ask' });
  await editor().locator('[data-role="mode"][data-mode="ask"]').waitFor({ timeout: 5_000 });
  await workbench.screenshot('mode-ask-in-both');
  await editor().locator('[data-role="mode"]').selectOption({ label: 'Auto-accept edits' });
  await side().locator('[data-role="mode"][data-mode="auto-edit"]').waitFor({ timeout: 5_000 });
  await side().locator('[data-role="mode"]').selectOption({ label: 'Ask' });
  await editor().locator('[data-role="mode"][data-mode="ask"]').waitFor({ timeout: 5_000 });
  // The tab closed and opened again still shows the session's mode, not its newest prompt's (Plan).
  await workbench.runCommand('View: Close All Editors');
  await workbench.page.locator('braidChat=editor').waitFor({ state: 'detached', timeout: 10_000 });
  await workbench.runCommand('Braid: Open Chat in Editor');
  await editor().locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  assert.equal(await editor().locator('[data-role="mode"]').inputValue(), 'ask');
  await workbench.runCommand('View: Close All Editors');
});

test('in Ask the demo answers from what it read and never says the command ran', async () => {
  await workbench.send('Run `ls -la`');
  const answer = await lastAnswer();
  assert.match(answer, /From reading the folder: The top folder holds 2 files/);
  assert.match(answer, /`?ls -la`? did not run\. This turn runs in Ask mode/);
  assert.doesNotMatch(answer, /ran in the workspace folder/);
  assert.doesNotMatch((await side().locator('[data-role="transcript"]').textContent()) ?? '', /may not change files or run commands/);
  await workbench.screenshot('demo-ask');
});

test('Carry Out Plan does what the plan said, in Agent mode, asking first', async () => {
  await side().locator('[data-role="mode"]').selectOption({ label: 'Plan' });
  await workbench.send('Change "Hello" to "Hi" in hello.txt');
  await side().locator('[data-role="plan"] button', { hasText: 'Carry Out Plan' }).click();
  const approval = side().locator('.approval');
  await approval.waitFor({ timeout: 15_000 });
  assert.equal(await side().locator('[data-role="mode"]').inputValue(), 'agent');
  await workbench.screenshot('demo-plan-carried-out');
  await approval.locator('button', { hasText: /^Allow$/ }).click();
  await side().locator('body[data-turn="idle"]').waitFor({ timeout: 15_000 });
  assert.equal(hello(), 'Hi from Braid!\n');
});
