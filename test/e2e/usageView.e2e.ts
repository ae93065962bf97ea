import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addTurn, openStore } from '../support/store';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';
import { Session } from '../../src/core/session/session';
import { resolveModel } from '../../src/core/model/modelSettings';
import { silentLogger } from '../../src/core/logger';

// The Usage view: opened from the palette and from /usage, a read-only webview with totals, a
// chart of tokens per day and tables by session (a fork's inherited history counted under its
// source), model and day; it follows turns another process writes, and closing it never asks to
// save anything.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'usage-view',
    settings: model.vscodeSettings(),
    files: { 'README.md': '# A workspace for the Usage view\n' },
  });
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const usage = () => workbench.usageFrame();
const tab = () => workbench.page.locator('.tabs-container .tab', { hasText: 'Braid Usage' });

/** A total card's value by its name. */
async function total(name: string): Promise<string> {
  return (await usage().locator('.card', { hasText: name }).locator('.value').textContent()) ?? '';
}

/** Closes the Usage tab with its close button; nothing may ask to save. */
async function closeUsage(shot: string): Promise<void> {
  await tab().hover();
  await tab().locator('.tab-actions .action-label').click();
  await tab().waitFor({ state: 'detached', timeout: 5_000 });
  const dialog = workbench.page.locator('.monaco-dialog-box');
  const asked = await dialog.waitFor({ state: 'visible', timeout: 2_000 }).then(
    () => true,
    () => false,
  );
  await workbench.screenshot(shot);
  assert.equal(asked, false, 'closing the Usage view asked something');
}

test("Show Usage from the palette: totals, a chart of tokens per day, tables by session, model and day; it follows another process's turns and closes without asking", async () => {
  await workbench.openChat();
  model.enqueue({ kind: 'text', chunks: ['First answer.'], usage: { prompt: 120, completion: 30 } });
  await workbench.send('Plan the release notes for version two with every change listed');
  model.enqueue({ kind: 'text', chunks: ['Second answer.'], usage: { prompt: 200, completion: 40, cached: 100 } });
  await workbench.send('Add the migration guide');
  await workbench.runCommand('Braid: Fork Session');
  await workbench.chatFrame().locator('[data-role="title"]', { hasText: 'Fork of Plan the release notes' }).waitFor({ timeout: 10_000 });
  model.enqueue({ kind: 'text', chunks: ['Fork answer.'], usage: { prompt: 300, completion: 20 } });
  await workbench.send('Now try it in the fork');

  await workbench.runCommand('Braid: Show Usage');
  await tab().waitFor({ timeout: 10_000 });
  await usage().locator('body[data-rendered]').waitFor({ timeout: 10_000 });
  // Three calls: the fork's copy of its source's two is not counted again.
  assert.equal(await total('Calls'), '3');
  assert.equal(await total('Input tokens'), '520');
  assert.equal(await total('Cached input'), '100');
  assert.equal(await total('Output tokens'), '90');
  const sessions = usage().locator('[data-role="sessions"] tbody tr');
  assert.equal(await sessions.count(), 2);
  const source = sessions.filter({ hasText: /^Plan the release notes for version two with every…/ });
  assert.deepEqual((await source.locator('td').allTextContents()).slice(0, 4), ['2', '220', '100', '70']);
  const fork = sessions.filter({ hasText: 'Fork of Plan the release notes' });
  assert.deepEqual((await fork.locator('td').allTextContents()).slice(0, 4), ['1', '300', '0', '20']);
  assert.match(
    (await fork.locator('.session-note').textContent()) ?? '',
    /^Its own calls only: the history it inherited from "Plan the release notes for version two with every…" is counted under that session\.$/,
  );
  await usage().locator('[data-role="models"] tbody tr', { hasText: 'openai-compatible/scripted-model' }).waitFor();
  const today = new Date().toISOString().slice(0, 10);
  await usage().locator('[data-role="days"] tbody tr', { hasText: today }).waitFor();
  const todayBar = usage().locator(`svg.chart .bar[data-day="${today}"]`);
  assert.equal(await todayBar.locator('.segment').count(), 3, 'input, cached and output stacked');
  assert.match((await todayBar.locator('title').textContent()) ?? '', new RegExp(`^${today}: 710 tokens`));
  await workbench.screenshot('usage-from-palette');

  // A turn another process writes: the open view follows.
  const store = await openStore(workbench.globalStorage);
  const other = await store.create({ workspaceDir: workbench.workspace, title: 'A turn from another process' });
  const writer = await store.openWriter(other.id);
  await addTurn(writer, 'Count me', 'Counted.');
  await writer.close();
  await store.close();
  await usage().locator('.card', { hasText: 'Calls' }).locator('.value', { hasText: /^4$/ }).waitFor({ timeout: 10_000 });
  await usage().locator('[data-role="sessions"] tbody tr', { hasText: 'A turn from another process' }).waitFor();
  await usage().locator('[data-scope="all"]').click();
  await usage().locator('[data-scope="all"][aria-pressed="true"]').waitFor();
  await workbench.screenshot('usage-followed-all-workspaces');
  await closeUsage('usage-closed-without-asking');
});

test('the By agent table lists the main agent and each subagent with its calls, tokens and cache hits', async () => {
  model.enqueue(
    {
      kind: 'toolCalls',
      calls: [{ id: 'task1', name: 'task', arguments: '{"description":"Read the README","prompt":"What does README.md say?"}' }],
      usage: { prompt: 500, completion: 10 },
    },
    { kind: 'text', chunks: ['It names the workspace.'], usage: { prompt: 400, completion: 8, cached: 100 } },
    { kind: 'text', chunks: ['The README names the workspace.'], usage: { prompt: 600, completion: 12, cached: 450 } },
  );
  await workbench.newSession();
  await workbench.send('Delegate reading the README');
  await workbench.runCommand('Braid: Show Usage');
  await tab().waitFor({ timeout: 10_000 });
  const agents = usage().locator('[data-role="agents"] tbody tr');
  const subagent = agents.filter({ hasText: 'Read the README' });
  await subagent.waitFor({ timeout: 10_000 });
  assert.deepEqual(await subagent.locator('td').allTextContents(), ['1', '300', '100', '8', '$0.0000', '25.0%']);
  const main = agents.filter({ hasText: /^main/ }).filter({ hasText: 'Delegate reading the README' });
  assert.deepEqual((await main.locator('td').allTextContents()).slice(0, 4), ['2', '650', '450', '22']);
  await subagent.scrollIntoViewIfNeeded();
  await workbench.screenshot('usage-by-agent');
  await closeUsage('usage-by-agent-closed');
});

test('/usage in the chat opens the same view, and it closes without asking', async () => {
  const input = workbench.chatFrame().locator('[data-role="input"]');
  await input.fill('/usage');
  await input.press('Enter');
  await tab().waitFor({ timeout: 10_000 });
  await usage().locator('body[data-rendered]').waitFor({ timeout: 10_000 });
  assert.equal(await total('Calls'), '7');
  await workbench.screenshot('usage-from-slash-command');
  await closeUsage('usage-closed-again');
});

/** A system prompt of about 1,700 tokens, and prompts of about 2,000: every call is long enough to cache. */
const LONG_SYSTEM = `You are a test agent.\n${'Follow the conventions of the project you work in.\n'.repeat(130)}`;
const longPrompt = (n: number) => `Request ${n}: read this log and say what failed.\n${`line ${n}: all is well\n`.repeat(400)}`;

test('a prompt cache break is listed in the Usage view with its cause, and marked in the transcript under the answer whose call broke the cache', async () => {
  // Another process (as `braid exec` would) runs three turns against a server that plays OpenAI's
  // prompt cache; the third turn runs on another model, so nothing of its prompt is cached.
  const caching = new ScriptedModelServer(() => ({ kind: 'text', chunks: ['Looked at it: nothing failed.'] }));
  caching.cachePrompts();
  await caching.start();
  const store = await openStore(workbench.globalStorage);
  let modelId = 'scripted-model';
  const priced = () => ({
    model: {
      ...resolveModel({ provider: 'openai-compatible', model: modelId, baseUrl: caching.baseUrl, demo: false }),
      cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    },
    thinking: 'off',
  });
  const session = await Session.open({
    store,
    workspaceDirs: [workbench.workspace],
    model: priced,
    apiKey: () => 'key',
    systemPrompt: LONG_SYSTEM,
    approvals: { request: async () => 'deny' },
    trusted: true,
    logger: silentLogger,
    gitContext: false,
  });
  try {
    for (const n of [1, 2, 3]) {
      if (n === 3) modelId = 'other-model';
      await session.submit(longPrompt(n));
      await session.waitForIdle();
    }
  } finally {
    await session.close();
    await store.close();
    await caching.close();
  }

  await workbench.runCommand('Braid: Show Usage');
  await tab().waitFor({ timeout: 10_000 });
  const broke = usage().locator('[data-role="breaks"] tbody tr').first();
  await broke.waitFor({ timeout: 10_000 });
  assert.deepEqual((await broke.locator('td').allTextContents()).slice(0, 2), ['3', 'model']);
  assert.match(
    (await broke.locator('td').nth(2).textContent()) ?? '',
    /scripted-model → openai-compatible\/other-model: [\d,]+ tokens not read from the cache, about \$0\.\d+/,
  );
  const row = usage().locator('[data-role="sessions"] tbody tr', { hasText: 'Request 1: read this log' });
  assert.match((await row.locator('td').last().textContent()) ?? '', /^\d+\.\d%$/, 'the session’s cache-hit ratio');
  await broke.scrollIntoViewIfNeeded();
  await workbench.screenshot('usage-cache-break');

  await broke.locator('button').click();
  const marker = workbench.chatFrame().locator('.cache-break');
  await marker.waitFor({ timeout: 10_000 });
  assert.match((await marker.textContent()) ?? '', /^Prompt cache broke: openai-compatible\/scripted-model → openai-compatible\/other-model/);
  await marker.scrollIntoViewIfNeeded();
  await workbench.screenshot('transcript-cache-break');
});
