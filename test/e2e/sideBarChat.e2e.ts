import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { FrameLocator, Locator } from 'playwright-core';
import { ScriptedModelServer } from '../support/modelServer';
import { openStore } from '../support/store';
import { Workbench } from '../support/workbench';

// The Chat view in a 300 px side bar, as a new user first meets it: the split with the Sessions
// tree, the header (a long title, the model, the Demo badge), queued prompts' chips, the composer,
// and the model dropdown that switches the next turn's model.
const model = new ScriptedModelServer();
let workbench: Workbench;
const chat = () => workbench.chatFrame();
const input = () => chat().locator('[data-role="input"]');

before(async () => {
  const baseUrl = await model.start();
  workbench = await Workbench.launch({
    name: 'side-bar-chat',
    settings: { 'braid.provider': 'openai-compatible', 'braid.model': 'scripted-model', 'braid.baseUrl': baseUrl, 'braid.demoModel': true },
    // A provider whose key is in the environment is listed among the providers with a key.
    env: { GROQ_API_KEY: 'test-key-for-the-picker' },
  });
  await workbench.openBraid();
  await chat().locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
});

after(async () => {
  await workbench?.close();
  await model.close();
});

/** Where an element is in its frame, and the frame's width. */
async function box(locator: Locator): Promise<{ left: number; right: number; top: number; bottom: number; viewport: number }> {
  return locator.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, viewport: document.documentElement.clientWidth };
  });
}

/** How many lines an element's text takes. */
const lines = (locator: Locator) =>
  locator.evaluate((e) => {
    const range = document.createRange();
    range.selectNodeContents(e);
    return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
  });

/** Asserts an element is wholly inside its page's width. */
async function inView(locator: Locator, what: string): Promise<void> {
  const b = await box(locator);
  assert.ok(b.left >= 0 && b.right <= b.viewport + 0.5, `${what} is in view (${Math.round(b.left)}-${Math.round(b.right)} of ${b.viewport} px)`);
}

test('the side bar gives the Chat view most of its height, the Sessions tree a quarter', async () => {
  const width = await workbench.setSideBarWidth(300);
  assert.ok(Math.abs(width - 300) <= 1, `side bar ${width} px wide`);
  const height = (name: string) =>
    workbench.page
      .locator('.pane', { has: workbench.page.locator('.pane-header', { hasText: name }) })
      .last()
      .evaluate((e) => e.getBoundingClientRect().height);
  const [sessions, chatHeight] = [await height('Sessions'), await height('Chat')];
  console.log(`side bar split at ${workbench.page.viewportSize()?.height} px: Sessions ${Math.round(sessions)} px, Chat ${Math.round(chatHeight)} px`);
  assert.ok(chatHeight >= 2.5 * sessions, `the Chat view (${chatHeight} px) is far taller than the tree (${sessions} px)`);
  await workbench.screenshot('side-bar-300-split');
});

test('at 300 px the header keeps the title, the model and the Demo badge on screen, each cut with its whole text in a tooltip', async () => {
  const prompt = 'Explain how the greeting module decides between formal and informal greetings in every locale';
  model.enqueue({ kind: 'text', chunks: ['It looks the locale up.'] });
  await input().fill(prompt);
  await input().press('Enter');
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 15_000 });
  const title = chat().locator('[data-role="title"]');
  await title.filter({ hasText: 'Explain how' }).waitFor({ timeout: 5_000 });
  const full = (await title.textContent()) ?? '';
  assert.equal(await title.getAttribute('title'), full, 'the tooltip holds the whole title');
  assert.ok(await title.evaluate((e) => e.scrollWidth > e.clientWidth), 'the title is cut with an ellipsis');
  await inView(title, 'the title');
  const picker = chat().locator('[data-role="model-picker"]');
  await inView(picker, 'the model dropdown');
  assert.equal(await chat().locator('[data-role="model"]').textContent(), 'openai-compatible · scripted-model · 128k context · 8k out');
  assert.equal(await chat().locator('.model-limits').isVisible(), false, 'a narrow header leaves the limits to the tooltip');
  assert.match((await picker.getAttribute('title')) ?? '', /Context window 128,000 tokens/);
  // Fractional widths: an ellipsis shows when the text is wider than its box by any fraction of a pixel.
  const widths = await chat()
    .locator('[data-role="model"] > span')
    .evaluateAll((spans) =>
      spans.map((e) => {
        const range = document.createRange();
        range.selectNodeContents(e);
        return [e.className, range.getBoundingClientRect().width, e.getBoundingClientRect().width];
      }),
    );
  console.log(`model line at 300 px (part, text width, shown width): ${JSON.stringify(widths)}`);
  const [, idText, idShown] = widths.find(([name]) => name === 'model-id')!;
  assert.ok(Number(idShown) >= Number(idText) - 0.01, 'the provider gives way so the model id shows whole');
  assert.match((await picker.getAttribute('title')) ?? '', /The next turn uses openai-compatible · scripted-model/);
  const badge = chat().locator('[data-role="demo"]');
  assert.equal(await badge.isVisible(), true);
  assert.equal(await lines(badge), 1, 'the Demo badge stays on one line');
  await inView(badge, 'the Demo badge');
  await workbench.screenshot('header-at-300');
});

test("at 300 px a queued prompt's chip keeps Steer and Cancel in view; the composer's hint and buttons fit", async () => {
  model.enqueue({ kind: 'text', chunks: Array.from({ length: 14 }, (_, i) => `step${i} `), chunkDelayMs: 250 });
  await input().fill('Work slowly');
  await input().press('Enter');
  await chat().locator('.message.assistant', { hasText: 'step0' }).waitFor({ timeout: 15_000 });
  const long = 'After that, rename every greeting helper so its name says which locale it serves, and update the tests that import them';
  await input().fill(long);
  await input().press('Enter');
  const chip = chat().locator('.chip', { hasText: 'After that' });
  await chip.waitFor({ timeout: 5_000 });
  assert.equal(await chip.locator('.chip-text').getAttribute('title'), long);
  await inView(chip, 'the chip');
  for (const name of ['Steer', 'Cancel']) await inView(chip.locator('button', { hasText: name }), `the chip's ${name}`);
  await inView(chat().locator('[data-role="stop"]'), 'Stop');
  await inView(chat().locator('[data-role="send"]'), 'Send');
  await workbench.screenshot('queue-and-composer-at-300');
  const hint = chat().locator('[data-role="hint"]');
  const [hintBox, stopBox] = [await box(hint), await box(chat().locator('[data-role="stop"]'))];
  assert.ok(hintBox.bottom <= stopBox.top + 1, `the hint has its own line above the buttons (${JSON.stringify([hintBox, stopBox])})`);
  await chip.locator('button', { hasText: 'Cancel' }).click();
  await chip.waitFor({ state: 'detached', timeout: 5_000 });
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 20_000 });
});

/** The dropdown's lines as "group:provider[/model]". */
const dropdownLines = (frame: FrameLocator) =>
  frame.locator('.model-option').evaluateAll((options) =>
    options.map((o) => {
      const d = (o as HTMLElement).dataset;
      return `${d.group}:${d.provider}${d.model ? `/${d.model}` : ''}`;
    }),
  );

test("the model dropdown lists the current model first and marked, then providers with a key; a pick switches the next turn's model", async () => {
  await chat().locator('[data-role="model-picker"]').click();
  const first = chat().locator('.model-option').first();
  await first.waitFor({ timeout: 10_000 });
  const listed = await dropdownLines(chat());
  assert.equal(listed[0], 'current:openai-compatible/scripted-model');
  assert.equal(await first.locator('.codicon-check').count(), 1);
  assert.match((await first.textContent()) ?? '', /openai-compatible · scripted-model\s*current/);
  const groups = listed.map((l) => l.split(':')[0]);
  assert.deepEqual([...new Set(groups)], ['current', 'keyed', 'other'], 'current, then providers with a key, then the rest');
  assert.deepEqual(
    listed.filter((l) => l.startsWith('keyed:')),
    ['keyed:openai-compatible', 'keyed:groq'],
    'the current provider first, then the one whose key is set',
  );
  assert.ok(listed.includes('other:anthropic'));
  await inView(first, 'the dropdown');
  await workbench.screenshot('model-dropdown-at-300');

  await chat().locator('.model-option[data-group="keyed"][data-provider="openai-compatible"]').click();
  const box = workbench.page.locator('.quick-input-widget input');
  await workbench.page.locator('.quick-input-widget', { hasText: 'Model id on your OpenAI-compatible server' }).waitFor({ timeout: 10_000 });
  assert.equal(await box.inputValue(), 'scripted-model', 'the current model id is offered');
  await box.fill('scripted-model-2');
  await box.press('Enter');
  await workbench.page.locator('.quick-input-widget', { hasText: 'Address of the server' }).waitFor({ timeout: 5_000 });
  assert.match(await box.inputValue(), /^http:\/\/127\.0\.0\.1:\d+\/v1$/, 'the current address is offered');
  await box.press('Enter');
  await chat().locator('[data-role="model"]', { hasText: 'openai-compatible · scripted-model-2' }).waitFor({ timeout: 10_000 });
  await chat().locator('.notice', { hasText: 'The next turn uses openai-compatible · scripted-model-2.' }).waitFor({ timeout: 5_000 });
  await workbench.screenshot('model-switched');

  model.enqueue({ kind: 'text', chunks: ['Answered by the second model.'] });
  const id = await chat().locator('body').getAttribute('data-session');
  await workbench.send('Which model are you?');
  assert.equal(model.requests.at(-1)!.body.model, 'scripted-model-2', 'the server saw the new model id');
  const store = await openStore(workbench.globalStorage);
  const state = store.get(id!);
  await store.close();
  assert.deepEqual(state.model && [state.model.provider, state.model.id], ['openai-compatible', 'scripted-model-2'], "the turn's model snapshot says what ran");
});

test('Braid: Select Model lists the same lines, the current model first with a check; another provider drops the old server address', async () => {
  await workbench.runCommand('Braid: Select Model');
  const rows = workbench.page.locator('.quick-input-list .monaco-list-row');
  await rows.filter({ hasText: 'scripted-model-2' }).first().waitFor({ timeout: 10_000 });
  assert.match((await rows.first().textContent()) ?? '', /openai-compatible · scripted-model-2\s*current/);
  assert.equal(await rows.first().locator('.codicon-check').count(), 1);
  assert.match((await rows.nth(1).textContent()) ?? '', /openai-compatible/);
  assert.match((await rows.nth(2).textContent()) ?? '', /groq.*API key set/);
  await workbench.screenshot('select-model-quick-pick');
  // Another provider: the address set for the OpenAI-compatible server must not get groq's key.
  await rows.filter({ hasText: 'groq' }).first().click();
  const groqModels = workbench.page.locator('.quick-input-list .monaco-list-row', { hasText: 'context' });
  await groqModels.first().waitFor({ timeout: 10_000 });
  await groqModels.first().click();
  await workbench.page.locator('.notification-toast', { hasText: 'braid.baseUrl' }).waitFor({ timeout: 10_000 });
  const settings = JSON.parse(fs.readFileSync(path.join(workbench.profile!.userData, 'User', 'settings.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(settings['braid.provider'], 'groq');
  assert.equal(settings['braid.baseUrl'] ?? '', '', "the OpenAI-compatible server's address was cleared");
  assert.equal(settings['braid.demoModel'], false, 'a real provider is not the demo model');
  await chat()
    .locator('[data-role="model"]', { hasText: /^groq · / })
    .waitFor({ timeout: 10_000 });
  assert.equal(await chat().locator('[data-role="demo"]').isVisible(), false);
  await workbench.screenshot('switched-provider-address-cleared');
});
