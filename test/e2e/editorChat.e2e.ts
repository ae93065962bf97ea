import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// Braid: Open Chat in Editor: the same page in an editor tab, on the window's one session, kept
// in step with the side bar's Chat view by the same frames, in either direction; approvals answer
// from either; a reload and a hidden tab recover.
const model = new ScriptedModelServer();
let workbench: Workbench;
const side = () => workbench.chatFrame();
const editor = () => workbench.editorChatFrame();
const tab = (title: string) => workbench.page.locator('.tabs-container .tab', { hasText: title });

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'editor-chat',
    settings: model.vscodeSettings(),
    files: { 'greet.ts': "export const greeting = 'hi';\n" },
  });
  await workbench.openBraid();
  await side().locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
});

after(async () => {
  await workbench?.close();
  await model.close();
});

test("the Chat view's title bar opens the chat in an editor tab", async () => {
  const header = workbench.page.locator('.pane-header', { hasText: 'Chat' }).first();
  await header.hover();
  await header.locator('.action-label[aria-label="Open Chat in Editor"]').click();
  await editor().locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  assert.equal(await editor().locator('body').getAttribute('data-place'), 'editor');
  await tab('Braid Chat').waitFor({ timeout: 5_000 });
  // Opening it again brings the same tab forward rather than a second one.
  await workbench.runCommand('Braid: Open Chat in Editor');
  await workbench.page.waitForTimeout(500);
  assert.equal(await workbench.page.locator('braidChat=editor').count(), 1, 'one chat tab per window');
  await workbench.screenshot('editor-chat-opened');
});

test('a prompt sent in the editor tab streams in the side view too, as it comes', async () => {
  const chunks = Array.from({ length: 16 }, (_, i) => `part${i} `);
  model.enqueue({ kind: 'text', chunks, chunkDelayMs: 200, usage: { prompt: 50, completion: 16 } });
  await editor().locator('[data-role="input"]').fill('Stream from the editor');
  await editor().locator('[data-role="input"]').press('Enter');
  await side().locator('.message.user', { hasText: 'Stream from the editor' }).waitFor({ timeout: 15_000 });
  await side().locator('.message.assistant', { hasText: 'part2' }).waitFor({ timeout: 15_000 });
  assert.equal(await side().locator('body').getAttribute('data-turn'), 'running', 'the side view streams while the turn runs');
  await workbench.screenshot('editor-prompt-streams-in-side-view');
  for (const page of [editor(), side()]) await page.locator('body[data-turn="idle"]').waitFor({ timeout: 15_000 });
  const answers = await Promise.all([editor(), side()].map((p) => p.locator('.message.assistant').last().textContent()));
  assert.equal(answers[0]?.replace(/\s+/g, ' ').trim(), chunks.join('').trim());
  assert.equal(answers[1], answers[0], 'both pages show the same answer');
  assert.equal(await side().locator('.message.assistant', { hasText: 'part0' }).count(), 1, 'once');
  const ids = await Promise.all([editor(), side()].map((p) => p.locator('body').getAttribute('data-session')));
  assert.match(ids[0] ?? '', /^ses_/);
  assert.equal(ids[1], ids[0]);
  await tab('Stream from the editor').waitFor({ timeout: 5_000 });
});

test('a prompt sent in the side view streams in the editor tab, and its approval is answered there', async () => {
  model.enqueue(
    {
      kind: 'toolCalls',
      text: 'I will write the notes.',
      calls: [{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content: '- from the side view\n' }) }],
    },
    { kind: 'text', chunks: ['Wrote ', 'notes.md.'], chunkDelayMs: 20 },
  );
  await side().locator('[data-role="input"]').fill('Write the notes');
  await side().locator('[data-role="input"]').press('Enter');
  await editor().locator('.message.user', { hasText: 'Write the notes' }).waitFor({ timeout: 15_000 });
  const approval = editor().locator('.approval');
  await approval.waitFor({ timeout: 15_000 });
  await side().locator('.approval').waitFor({ timeout: 5_000 });
  assert.match((await approval.textContent()) ?? '', /Braid wants to change a file: Create notes\.md/);
  await workbench.screenshot('approval-in-both');
  await approval.locator('button', { hasText: /^Allow$/ }).click();
  await side().locator('.approval', { hasText: 'Allowed once.' }).waitFor({ timeout: 10_000 });
  for (const page of [editor(), side()]) await page.locator('.message.assistant', { hasText: 'Wrote notes.md.' }).waitFor({ timeout: 15_000 });
  assert.equal(fs.readFileSync(path.join(workbench.workspace, 'notes.md'), 'utf8'), '- from the side view\n');
  await workbench.screenshot('approved-in-editor');
});

test('a hidden editor tab shows a running turn again when it comes back', async () => {
  // Long enough (10 s) to outlast switching tabs on a busy machine.
  const chunks = Array.from({ length: 40 }, (_, i) => `bit${i} `);
  model.enqueue({ kind: 'text', chunks, chunkDelayMs: 250 });
  await side().locator('[data-role="input"]').fill('Stream while the tab is hidden');
  await side().locator('[data-role="input"]').press('Enter');
  await side().locator('.message.assistant', { hasText: 'bit0' }).waitFor({ timeout: 15_000 });
  // Another editor in the same group hides the chat tab: its page is destroyed (no retainContextWhenHidden).
  await workbench.openPalette();
  await workbench.page.locator('.quick-input-widget input').fill('greet.ts');
  await workbench.page.locator('.quick-input-list .monaco-list-row', { hasText: 'greet.ts' }).first().waitFor();
  await workbench.page.locator('.quick-input-widget input').press('Enter');
  await workbench.page.locator('.tabs-container .tab.active', { hasText: 'greet.ts' }).waitFor({ timeout: 10_000 });
  await workbench.page.waitForTimeout(800);
  await tab('Stream from the editor').click();
  await editor().locator('body[data-handshake="complete"]').waitFor({ timeout: 15_000 });
  await editor().locator('.message.assistant', { hasText: 'bit0' }).waitFor({ timeout: 5_000 });
  assert.equal(await editor().locator('body').getAttribute('data-turn'), 'running', 'the tab knows the turn still runs');
  await editor().locator('body[data-turn="idle"]').waitFor({ timeout: 30_000 });
  assert.equal(
    (await editor().locator('.message.assistant', { hasText: 'bit0' }).textContent())?.replace(/\s+/g, ' ').trim(),
    chunks.join('').trim(),
    'every part once, in order',
  );
});

test('after a window reload the editor tab and the side view come back on the same session', async () => {
  const id = await side().locator('body').getAttribute('data-session');
  await workbench.reloadTo(id!);
  await editor().locator(`body[data-session="${id}"]`).waitFor({ timeout: 30_000 });
  for (const page of [editor(), side()]) {
    await page.locator('.message.user', { hasText: 'Stream from the editor' }).waitFor({ timeout: 10_000 });
    await page.locator('.message.assistant', { hasText: 'Wrote notes.md.' }).waitFor({ timeout: 10_000 });
  }
  await workbench.screenshot('after-reload');
  // Still one session for both: a prompt from the restored tab shows in the side view.
  model.enqueue({ kind: 'text', chunks: ['Still here.'] });
  await editor().locator('[data-role="input"]').fill('After the reload');
  await editor().locator('[data-role="input"]').press('Enter');
  await side().locator('.message.assistant', { hasText: 'Still here.' }).waitFor({ timeout: 15_000 });
});

test("what a page asked for goes to that page: a side question's answer and the prompt back from Edit", async () => {
  model.enqueue({ kind: 'text', chunks: ['It says hi.'] });
  await editor().locator('[data-role="input"]').fill('/btw what does greet.ts say?');
  await editor().locator('[data-role="input"]').press('Enter');
  await editor().locator('[data-role="side-answer"]', { hasText: 'It says hi.' }).waitFor({ timeout: 15_000 });
  assert.equal(await side().locator('[data-role="side"]').isVisible(), false, 'the side view shows no overlay it did not ask for');
  await editor().locator('[data-role="side-close"]').click();

  const prompt = editor().locator('.message.user', { hasText: 'After the reload' });
  await prompt.hover();
  await prompt.locator('.message-actions button', { hasText: 'Edit' }).click();
  const dialog = workbench.page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 10_000 });
  await dialog.locator('.monaco-button', { hasText: /^Rewind$/ }).click();
  await editor().locator('.message.user', { hasText: 'After the reload' }).waitFor({ state: 'detached', timeout: 10_000 });
  await side().locator('.message.user', { hasText: 'After the reload' }).waitFor({ state: 'detached', timeout: 10_000 });
  for (let i = 0; i < 100 && (await editor().locator('[data-role="input"]').inputValue()) !== 'After the reload'; i++) await workbench.page.waitForTimeout(100);
  assert.equal(await editor().locator('[data-role="input"]').inputValue(), 'After the reload', 'the prompt comes back where Edit was pressed');
  assert.equal(await side().locator('[data-role="input"]').inputValue(), '');
  await workbench.screenshot('edit-back-in-editor');
});
