import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { readFileReply, ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// `/sessions <query>` in the chat and Braid: Open Session...: VS Code's session quick pick opens
// with the query typed in, only the sessions matching it listed; the one picked opens in the chat,
// at its matching turn with the searched words marked, however far back that turn is.
const model = new ScriptedModelServer();
/** Files a turn reads one by one, to make it long (a read repeated with the same arguments stops the turn). */
const NOTES = Array.from({ length: 90 }, (_, i) => `notes/${i}.md`);
let workbench: Workbench;
const chat = () => workbench.chatFrame();
const input = () => chat().locator('[data-role="input"]');

before(async () => {
  const baseUrl = await model.start();
  workbench = await Workbench.launch({
    name: 'sessions-slash',
    settings: { 'braid.provider': 'openai-compatible', 'braid.model': 'scripted-model', 'braid.baseUrl': baseUrl },
    files: Object.fromEntries(NOTES.map((file, i) => [file, `# Note ${i}\n`])),
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

/** Whether `mark` lies inside the visible part of the transcript. */
async function inView(frame: FrameLocator, mark: ReturnType<FrameLocator['locator']>): Promise<boolean> {
  const box = await mark.boundingBox();
  const view = await frame.locator('[data-role="transcript"]').boundingBox();
  return !!box && !!view && box.y >= view.y && box.y + box.height <= view.y + view.height;
}

test('a search result opens its session at the matching turn, paged back and its request opened, the words marked', async () => {
  await workbench.newSession();
  model.enqueue({ kind: 'text', chunks: ['Let me look at the palette.'] });
  await workbench.send('Describe the palette');
  const id = await chat().locator('body').getAttribute('data-session');
  // "continue" follows up the first request: its turn is listed only when the request is opened.
  model.enqueue({ kind: 'text', chunks: ['The Quillwort shade is the accent colour.'] });
  await workbench.send('continue');
  // 94 messages: the newest page (80) starts inside this turn, so turn 2 is on an older page.
  model.enqueue(readFileReply(NOTES.slice(0, 45), 'first'));
  model.enqueue(readFileReply(NOTES.slice(45), 'then'));
  model.enqueue({ kind: 'text', chunks: ['Read all ninety.'] });
  await workbench.send('Read every note');
  model.enqueue({ kind: 'text', chunks: ['Summed up: the accent stays.'] });
  await workbench.send('Sum it up');
  await workbench.newSession();

  await workbench.runCommand('Braid: Open Session...');
  const box = workbench.page.locator('.quick-input-widget input');
  await box.fill('quillw');
  const rows = workbench.page.locator('.quick-input-list .monaco-list-row');
  await rows.filter({ hasText: 'turn 2' }).first().waitFor({ timeout: 5_000 });
  assert.equal(await rows.count(), 1, 'one session, one matching turn');
  await workbench.screenshot('open-session-turn-search');
  await box.press('Enter');
  await chat().locator(`body[data-session="${id}"][data-revealed-turn="2"]`).waitFor({ timeout: 15_000 });
  const mark = chat().locator('.message.assistant mark', { hasText: 'Quillwort' });
  assert.equal(await mark.count(), 1, 'the word is marked in the answer of turn 2');
  assert.equal(await mark.textContent(), 'Quillwort', 'the whole word the search found by its start');
  assert.ok(await inView(chat(), mark), 'the marked word is on screen');
  assert.equal(await chat().locator('.request-turns button').first().getAttribute('aria-expanded'), 'true', 'its request was opened');
  await workbench.screenshot('open-session-turn-revealed');

  // /sessions lists each further matching turn under its session; that line opens at its turn.
  await input().fill('/sessions accent');
  await input().press('Enter');
  await box.waitFor({ timeout: 10_000 });
  const turn4 = rows.filter({ hasText: 'turn 4' });
  await turn4.waitFor({ timeout: 5_000 });
  assert.match((await rows.first().textContent()) ?? '', /turn 2 \(\+1 more\)/);
  await workbench.screenshot('sessions-slash-turn-lines');
  await turn4.click();
  await chat().locator('body[data-revealed-turn="4"]').waitFor({ timeout: 15_000 });
  const accent = chat().locator('.message.assistant mark', { hasText: 'accent' });
  assert.equal(await accent.count(), 1, 'only the opened turn has the word marked');
  assert.ok(await inView(chat(), accent));
  assert.equal(await chat().locator('mark', { hasText: 'Quillwort' }).count(), 0, 'the earlier search no longer marks');

  // A prompt moves on: the marks go.
  model.enqueue({ kind: 'text', chunks: ['Done.'] });
  await workbench.send('Thanks');
  assert.equal(await chat().locator('mark').count(), 0);
  await workbench.screenshot('open-session-marks-gone');
});
