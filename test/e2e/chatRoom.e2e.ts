import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { readFileReply, ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// The chat's room, as a newcomer meets it: the Explorer points to Braid on the first screen; at
// 300 px the header is one line; an edit's diff shows a few lines of context and is shown once
// (the approval card while asked, the tool card once done), its JSON arguments only on request;
// one command moves the chat beside the editor, into the Secondary Side Bar.
const model = new ScriptedModelServer();
let workbench: Workbench;
const chat = () => workbench.chatFrame();
const input = () => chat().locator('[data-role="input"]');

/** A file of 20 lines whose tenth says Hello. */
const GREETING = `${Array.from({ length: 20 }, (_, i) => (i === 9 ? 'Hello' : `line ${i + 1}`)).join('\n')}\n`;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({ name: 'chat-room', settings: model.vscodeSettings(), files: { 'greeting.txt': GREETING } });
});

after(async () => {
  await workbench?.close();
  await model.close();
});

test('the first screen points to Braid: a Braid section in the Explorer opens the chat, and goes once it has', async () => {
  const page = workbench.page;
  // The window opens on the Explorer; the command shows it either way (a click on its shown icon would hide it).
  await workbench.runCommand('View: Show Explorer');
  await workbench.screenshot('first-screen');
  const section = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Braid/ }) });
  await section.waitFor({ timeout: 30_000 });
  // A collapsed section opens on a click on its header.
  const open = section.locator('.monaco-button', { hasText: 'Open Braid Chat' });
  if (!(await open.isVisible())) await section.locator('.pane-header').click();
  await open.waitFor({ timeout: 10_000 });
  assert.ok(await section.locator('.monaco-button', { hasText: 'Chat Beside the Editor' }).isVisible());
  await workbench.screenshot('explorer-points-to-braid');
  await open.click();
  await chat().locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  await workbench.runCommand('View: Show Explorer');
  await section.waitFor({ state: 'detached', timeout: 10_000 });
  await workbench.openChat();
});

/** The header's height, and the vertical middles of its shown parts. */
const headerLayout = (header: Locator) =>
  header.evaluate((h) => {
    const shown = Array.from(h.children).filter((c) => c.getBoundingClientRect().width > 0 && !c.classList.contains('model-menu'));
    const middles = shown.map((c) => {
      const r = c.getBoundingClientRect();
      return Math.round(r.top + r.height / 2);
    });
    return { height: h.getBoundingClientRect().height, middles };
  });

test('at 300 px the header is one line: the title, the model and the context meter side by side', async () => {
  await workbench.openChat();
  const width = await workbench.setSideBarWidth(300);
  assert.ok(Math.abs(width - 300) <= 1, `side bar ${width} px wide`);
  model.enqueue({ kind: 'text', chunks: ['It greets the reader.'], usage: { prompt: 2_000, completion: 9 } });
  await workbench.send('Explain what the greeting file says and where its words come from, line by line');
  const header = chat().locator('header.toolbar');
  await chat().locator('[data-role="title"]', { hasText: 'Explain' }).waitFor({ timeout: 10_000 });
  await chat().locator('[data-role="context"]:not([hidden])').waitFor({ timeout: 10_000 });
  await workbench.page.mouse.move(700, 400); // off the sash, so no tooltip covers the header
  const layout = await headerLayout(header);
  await workbench.screenshot('header-one-line-at-300');
  assert.ok(Math.max(...layout.middles) - Math.min(...layout.middles) <= 3, `the header's parts sit on one row: ${JSON.stringify(layout)}`);
  assert.ok(layout.height <= 30, `the header is one line high: ${JSON.stringify(layout)}`);
  assert.equal((await chat().locator('[data-role="model"]').innerText()).trim(), 'scripted-model', 'the model id shows, its provider in the tooltip');
  const title = chat().locator('[data-role="title"]');
  assert.ok(await title.evaluate((e) => e.clientWidth >= 30), 'the title keeps some room');
  assert.equal(await title.getAttribute('title'), await title.textContent(), 'the whole title is in the tooltip');
});

test("an edit's diff shows three lines of context around the change, once: in the approval card while asked, in the tool card once done; the arguments on request", async () => {
  await workbench.openChat();
  model.enqueue(
    readFileReply('greeting.txt'),
    {
      kind: 'toolCalls',
      text: 'I will shorten the greeting.',
      calls: [{ id: 'e1', name: 'edit_file', arguments: JSON.stringify({ path: 'greeting.txt', old_text: 'Hello', new_text: 'Hi' }) }],
    },
    { kind: 'text', chunks: ['It says Hi now.'] },
  );
  await input().fill('Shorten the greeting');
  await input().press('Enter');
  const approval = chat().locator('.approval');
  await approval.waitFor({ timeout: 15_000 });
  const card = chat().locator('.tool', { hasText: 'edit_file greeting.txt' });
  const expected = ['@@ -7,7 +7,7 @@', ' line 7', ' line 8', ' line 9', '-Hello', '+Hi', ' line 11', ' line 12', ' line 13'].map((l) => `${l}\n`);
  assert.deepEqual(await approval.locator('.approval-detail span').allTextContents(), expected);
  assert.equal(await chat().locator('.diff').count(), 1, 'the diff is shown once: the tool card does not repeat it');
  assert.equal(await card.locator('.diff').count(), 0);
  assert.equal(await chat().locator('.tool-args:visible').count(), 0, 'no JSON arguments are shown');
  await workbench.screenshot('edit-asked-diff-once-with-context');
  await approval.locator('button', { hasText: /^Allow$/ }).click();
  await chat().locator('.message.assistant', { hasText: 'It says Hi now.' }).waitFor({ timeout: 15_000 });
  await chat().locator('body[data-turn="idle"]').waitFor();
  assert.equal(fs.readFileSync(path.join(workbench.workspace, 'greeting.txt'), 'utf8'), GREETING.replace('Hello', 'Hi'));
  assert.equal(await card.getAttribute('data-status'), 'done');
  assert.deepEqual(await card.locator('.diff span').allTextContents(), expected, 'the done card shows the diff with its context');
  assert.equal(await chat().locator('.diff').count(), 1, 'and the decided approval card no longer does');
  assert.equal(await card.locator('.tool-args').isVisible(), false, "the card's arguments start folded");
  await workbench.screenshot('edit-done-diff-in-tool-card');
  await card.locator('.tool-card-args > summary').click();
  assert.deepEqual(JSON.parse((await card.locator('.tool-args').textContent()) ?? ''), { path: 'greeting.txt', old_text: 'Hello', new_text: 'Hi' });
  await workbench.screenshot('edit-arguments-on-request');
});

test('Braid: Move Chat Beside the Editor puts the chat in the Secondary Side Bar, where it works', async () => {
  await workbench.runCommand('Braid: Move Chat Beside the Editor');
  const page = workbench.page;
  const auxiliary = page.locator('.part.auxiliarybar');
  await auxiliary.waitFor({ state: 'visible', timeout: 15_000 });
  await auxiliary.locator('.pane-header, .composite.title', { hasText: /Chat/ }).first().waitFor({ timeout: 15_000 });
  // The page sits over the Secondary Side Bar now (not over the side bar, so `editor` finds it).
  const moved = workbench.editorChatFrame();
  await moved.locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  const [frame, bar] = [await page.locator('iframe.webview.ready').last().boundingBox(), await auxiliary.boundingBox()];
  assert.ok(
    frame && bar && frame.x >= bar.x - 1 && frame.x + frame.width <= bar.x + bar.width + 1,
    `the chat is inside the Secondary Side Bar: ${JSON.stringify([frame, bar])}`,
  );
  model.enqueue({ kind: 'text', chunks: ['Beside the editor.'] });
  await moved.locator('[data-role="input"]').fill('Where are you?');
  await moved.locator('[data-role="input"]').press('Enter');
  await moved.locator('.message.assistant', { hasText: 'Beside the editor.' }).waitFor({ timeout: 15_000 });
  await workbench.screenshot('chat-beside-the-editor');
});
