import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../support/modelServer';
import { openStore } from '../support/store';
import { Workbench } from '../support/workbench';

// /compact in the real VS Code: the context meter fills with the provider's counts and warns near
// the compaction threshold, the divider shows (and expands to the summary), the meter drops, the
// next prompt still gets an answer with the summary in its context, and Up in the input recalls
// prompts.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  const baseUrl = await model.start();
  workbench = await Workbench.launch({
    name: 'compaction',
    settings: {
      'braid.provider': 'openai-compatible',
      'braid.model': 'scripted-model',
      'braid.baseUrl': baseUrl,
      'braid.compaction.keepTokens': 10,
      'braid.contextWindow': 20_000,
    },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

test('/compact on a session of several turns shows the divider, and the next prompt still gets an answer', async () => {
  const chat = workbench.chatFrame();
  const meter = chat.locator('[data-role="context"]');
  // The server counts each request as a real provider would: the third fills 72% of the window.
  for (const [prompt, reply, promptTokens] of [
    ['Plan the parser', 'Use a recursive descent parser.', 6_000],
    ['Name the modules', 'lexer, parser, printer.', 10_000],
    ['List the risks', 'Error recovery is hard.', 14_390],
  ] as const) {
    model.enqueue({ kind: 'text', chunks: [reply], usage: { prompt: promptTokens, completion: 10 } });
    await workbench.send(prompt);
    await chat.locator('.message.assistant', { hasText: reply }).waitFor();
    if (promptTokens === 6_000) {
      await chat.locator('[data-role="context"][data-level="ok"] .context-text', { hasText: /^30%$/ }).waitFor({ timeout: 10_000 });
    }
  }
  await chat.locator('[data-role="context"][data-level="warn"]').waitFor({ timeout: 10_000 });
  assert.equal(await meter.locator('.context-text').textContent(), '72%');
  const tooltip = (await meter.getAttribute('title')) ?? '';
  assert.match(tooltip, /^Context: 14,400 of 20,000 tokens \(72%\), the last request as the provider counted it/);
  assert.match(tooltip, /System prompt and tools: about [\d,]+\nConversation: [\d,]+\nAttachments: none\n/);
  assert.match(tooltip, /compacts the conversation at 80% \(16,000 tokens\): soon\./);
  assert.equal(await chat.locator('[data-role="compact"]').isVisible(), true);
  await workbench.screenshot('context-meter-near-the-threshold');
  model.enqueue(
    { kind: 'text', chunks: ['The user is designing a parser: recursive descent; modules lexer, parser, printer.'] },
    { kind: 'text', chunks: ['- decision: a recursive descent parser'] }, // the session memory, extracted with the summary
  );
  await chat.locator('[data-role="input"]').fill('/compact the module names');
  await chat.locator('[data-role="input"]').press('Enter');
  const divider = chat.locator('details.compaction');
  await divider.waitFor({ timeout: 15_000 });
  assert.match((await divider.locator('summary').textContent()) ?? '', /Context compacted: \d+ earlier messages? summarized/);
  const summaryRequest = model.requests.at(-2)!;
  assert.match(JSON.stringify(summaryRequest.body), /focus on: the module names/);
  await divider.locator('summary').click();
  await divider.locator('.compaction-summary', { hasText: 'recursive descent' }).waitFor();
  // Every original message is still in the transcript.
  for (const prompt of ['Plan the parser', 'Name the modules', 'List the risks']) await chat.locator('.message.user', { hasText: prompt }).waitFor();
  await workbench.screenshot('compacted-divider');
  // The summary replaced what the last count included: the meter drops to an estimate of what is left.
  await chat.locator('[data-role="context"][data-level="ok"]').waitFor({ timeout: 10_000 });
  const after = Number((await meter.locator('.context-text').textContent())?.replace('%', ''));
  assert.ok(after < 30, `the meter shows ${after}% after the compaction`);
  assert.match((await meter.getAttribute('title')) ?? '', /^Context: [\d,]+ of 20,000 tokens \(\d+%\), an estimate\n/);

  model.enqueue({ kind: 'text', chunks: ['Start with the lexer.'] });
  await workbench.send('What first?');
  await chat.locator('.message.assistant', { hasText: 'Start with the lexer.' }).waitFor();
  const next = JSON.stringify(model.requests.at(-1)!.body.messages);
  assert.match(next, /summarized to fit the context window/);
  assert.match(next, /What first\?/);
  assert.doesNotMatch(next, /Plan the parser/, 'the summarized prompts are not sent again');

  const id = (await chat.locator('body').getAttribute('data-session'))!;
  const store = await openStore(workbench.globalStorage);
  const history = store.history(id);
  await store.close();
  assert.equal(history.compactions.length, 1);
  assert.equal(history.messages.filter((m) => m.message.role === 'user').length, 4, 'the log keeps every prompt');
  await workbench.screenshot('answered-after-compaction');

  // The meter's Compact button compacts as /compact does.
  model.enqueue({ kind: 'text', chunks: ['Parser design; the lexer comes first.'] }, { kind: 'text', chunks: ['- decision: the lexer comes first'] });
  await chat.locator('[data-role="compact"]').click();
  await chat.locator('details.compaction').nth(1).waitFor({ timeout: 15_000 });
  assert.match(JSON.stringify(model.requests.at(-2)!.body), /summarize the earlier part of a conversation/i);
});

test('Up in the empty input recalls earlier prompts, newest first; Down goes back to the draft', async () => {
  const input = workbench.chatFrame().locator('[data-role="input"]');
  await input.fill('');
  await input.press('ArrowUp');
  assert.equal(await input.inputValue(), 'What first?');
  await input.press('ArrowUp');
  assert.equal(await input.inputValue(), 'List the risks');
  await workbench.screenshot('prompt-history');
  await input.press('ArrowDown');
  await input.press('ArrowDown');
  assert.equal(await input.inputValue(), '');
});
