import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addTurn, openStore, repoRoot } from '../support/store';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// The packaged extension in a real VS Code: the container opens, the Sessions tree and the
// Chat webview render, the webview and the host complete their handshake, and a prompt goes
// through the kernel to a scripted OpenAI-compatible server and streams back.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'foundation',
    settings: model.vscodeSettings(),
    files: { 'README.md': '# A workspace for Braid\n' },
  });
});

after(async () => {
  await workbench?.close();
  await model.close();
});

test('the Braid container shows the Sessions tree and the Chat view, and the webview completes its handshake', async () => {
  await workbench.screenshot('workbench');
  await workbench.openBraid();
  const page = workbench.page;
  await page.locator('.pane-header', { hasText: 'Sessions' }).first().waitFor();
  await page.locator('.pane-header', { hasText: 'Chat' }).first().waitFor();
  await page.locator('.welcome-view-content', { hasText: 'No sessions for this workspace yet' }).waitFor();

  const chat = workbench.chatFrame();
  await chat.locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  assert.equal(await chat.locator('[data-role="model"]').textContent(), 'openai-compatible · scripted-model · 128k context · 8k out');
  assert.equal(await chat.locator('[data-role="demo"]').isVisible(), false);
  await workbench.screenshot('braid-container');
});

test('a prompt streams an answer from the model server, with usage', async () => {
  model.enqueue({
    kind: 'text',
    chunks: ['Braid ', 'answers ', 'from the ', 'scripted server.'],
    chunkDelayMs: 30,
    usage: { prompt: 42, completion: 7, cached: 10 },
  });
  const chat = workbench.chatFrame();
  await chat.locator('[data-role="input"]').fill('What is this workspace?');
  await chat.locator('[data-role="input"]').press('Enter');
  await chat.locator('.message.assistant', { hasText: 'Braid answers from the scripted server.' }).waitFor();
  const status = chat.locator('.turn-status').last();
  await status.filter({ hasText: '7 out' }).waitFor();
  assert.equal(await status.getAttribute('data-outcome'), 'completed');
  assert.match((await status.textContent()) ?? '', /32 in, 10 cached · 7 out/);
  // The time to the first token on screen, measured by the page from Enter to the painted frame.
  console.log(`time to first token on screen: ${await chat.locator('body').getAttribute('data-first-token-ms')} ms`);
  const request = model.requests.at(-1)!;
  assert.match(JSON.stringify(request.body.messages), /What is this workspace\?/);
  await workbench.screenshot('answer-streamed');
  // The conversation is a stored session: it shows in the tree, and its log is in globalStorage.
  await workbench.page.locator('.monaco-list-row', { hasText: 'What is this workspace?' }).waitFor({ timeout: 5_000 });
  const sessionId = await chat.locator('body').getAttribute('data-session');
  assert.match(sessionId ?? '', /^ses_/);
  const store = await openStore(workbench.globalStorage);
  const records = store.history(sessionId!).messages.map((m) => m.message.role);
  await store.close();
  assert.deepEqual(records, ['user', 'assistant']);
});

test('a file write asks for approval in the chat; Allow writes the file and the card shows the diff', async () => {
  model.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'notes/todo.md', content: '- ship it\n' }) }] },
    { kind: 'text', chunks: ['Wrote notes/todo.md.'] },
  );
  const chat = workbench.chatFrame();
  await chat.locator('[data-role="input"]').fill('Create a todo file');
  await chat.locator('[data-role="input"]').press('Enter');
  const approval = chat.locator('.approval');
  await approval.waitFor({ timeout: 15_000 });
  assert.match((await approval.textContent()) ?? '', /Braid wants to change a file: Create notes\/todo\.md/);
  assert.equal(fs.existsSync(path.join(workbench.workspace, 'notes', 'todo.md')), false, 'nothing is written before the answer');
  await workbench.screenshot('approval-in-chat');
  await approval.locator('button', { hasText: /^Allow$/ }).click();
  await chat.locator('.message.assistant', { hasText: 'Wrote notes/todo.md.' }).waitFor();
  assert.equal(fs.readFileSync(path.join(workbench.workspace, 'notes', 'todo.md'), 'utf8'), '- ship it\n');
  assert.match((await approval.textContent()) ?? '', /Allowed once/);
  const card = chat.locator('.tool', { hasText: 'write_file notes/todo.md' });
  assert.equal(await card.getAttribute('data-status'), 'done');
  assert.equal(await card.locator('.diff-add').first().textContent(), '+- ship it\n');
  await workbench.screenshot('file-written');
});

test("a model error shows as a failed turn with the server's message", async () => {
  model.enqueue({ kind: 'httpError', status: 400, message: 'context length exceeded in this scripted test' });
  const chat = workbench.chatFrame();
  await chat.locator('[data-role="input"]').fill('Trigger an error');
  await chat.locator('[data-role="input"]').press('Enter');
  await chat.locator('.turn-status[data-outcome="failed"]', { hasText: 'context length exceeded' }).waitFor();
  await workbench.screenshot('failed-turn');
});

test('sessions another process creates and the CLI renames appear in the Sessions tree within 2 s', async () => {
  const store = await openStore(workbench.globalStorage);
  const session = await store.create({ workspaceDir: workbench.workspace });
  const writer = await store.openWriter(session.id);
  await addTurn(writer, 'Explain the layout of this repository', 'It has a README.');
  await writer.close();
  await store.close();
  const page = workbench.page;
  const started = Date.now();
  const row = page.locator('.monaco-list-row', { hasText: 'Explain the layout of this repository' });
  await row.waitFor({ timeout: 10_000 });
  const seenAfter = Date.now() - started;
  await workbench.screenshot('session-in-tree');
  assert.ok(seenAfter < 2_000 + 500, `shown after ${seenAfter} ms`);
  assert.match((await row.textContent()) ?? '', /1 turn/);

  const cli = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'dist', 'cli.js'), '--data-dir', workbench.globalStorage, 'rename', session.id, 'Renamed from the CLI'],
    { encoding: 'utf8' },
  );
  assert.equal(cli.status, 0, cli.stderr);
  await page.locator('.monaco-list-row', { hasText: 'Renamed from the CLI' }).waitFor({ timeout: 2_500 });
  await workbench.screenshot('renamed-by-cli');

  // Clicking the row opens the session in the Chat view, transcript from the log.
  await page.locator('.monaco-list-row', { hasText: 'Renamed from the CLI' }).click();
  const chat = workbench.chatFrame();
  await chat.locator(`body[data-session="${session.id}"]`).waitFor({ timeout: 5_000 });
  await chat.locator('.message.user', { hasText: 'Explain the layout of this repository' }).waitFor();
  await chat.locator('.message.assistant', { hasText: 'It has a README.' }).waitFor();
  await workbench.screenshot('session-opened-in-chat');
});

test('a session another process is writing opens read-only and follows its log live', async () => {
  const store = await openStore(workbench.globalStorage);
  const session = await store.create({ workspaceDir: workbench.workspace, title: 'Written elsewhere' });
  const writer = await store.openWriter(session.id);
  try {
    await addTurn(writer, 'first prompt from elsewhere', 'first answer');
    const page = workbench.page;
    await page.locator('.monaco-list-row', { hasText: 'Written elsewhere' }).click();
    const chat = workbench.chatFrame();
    await chat.locator(`body[data-session="${session.id}"][data-read-only="true"]`).waitFor({ timeout: 5_000 });
    assert.equal(await chat.locator('[data-role="read-only"]').isVisible(), true);
    assert.equal(await chat.locator('[data-role="input"]').isDisabled(), true);
    await addTurn(writer, 'second prompt, live', 'second answer, live');
    await chat.locator('.message.assistant', { hasText: 'second answer, live' }).waitFor({ timeout: 3_000 });
    await workbench.screenshot('read-only-follow');
  } finally {
    await writer.close();
    await store.close();
  }
});

test('markdown in answers renders, and HTML or scripts in them stay inert', async () => {
  await workbench.newSession();
  model.enqueue({
    kind: 'text',
    chunks: [
      '## Result\n\nSome **bold** text and `code`.\n\n```ts\nconst x = 1;\n```\n\n',
      "<img src=x onerror=\"document.body.dataset.pwned='img'\">\n\n<script>document.body.dataset.pwned='script'</script>\n\n",
      '[click me](javascript:document.body.dataset.pwned=\'link\') and <a href="#" onclick="document.body.dataset.pwned=\'click\'">this</a>\n',
    ],
  });
  const chat = workbench.chatFrame();
  await chat.locator('[data-role="input"]').fill('Show me some markdown');
  await chat.locator('[data-role="input"]').press('Enter');
  await chat.locator('.turn-status[data-outcome="completed"]').waitFor({ timeout: 15_000 });
  const answer = chat.locator('.message.assistant').last();
  await answer.locator('h2', { hasText: 'Result' }).waitFor();
  assert.equal(await answer.locator('strong', { hasText: 'bold' }).count(), 1);
  assert.equal(await answer.locator('pre code', { hasText: 'const x = 1;' }).count(), 1);
  assert.equal(await answer.locator('.copy-code').count(), 1);
  assert.equal(await answer.locator('img, script, [onerror], [onclick], a[href^="javascript"]').count(), 0);
  for (const link of await answer.locator('a').all()) await link.click().catch(() => undefined);
  assert.equal(await chat.locator('body').getAttribute('data-pwned'), null, 'nothing from the answer ran');
  await workbench.screenshot('markdown-inert-html');
});

test('the status bar names the session and its model; Show Usage totals by session, model and day', async () => {
  const page = workbench.page;
  const item = page.locator('.statusbar-item', { hasText: 'Show me some markdown' });
  await item.waitFor({ timeout: 5_000 });
  assert.match((await item.textContent()) ?? '', /scripted-model · \d+ tokens/);
  await workbench.runCommand('Braid: Show Usage');
  const usage = workbench.usageFrame();
  const line = usage.locator('[data-role="sessions"] tbody tr', { hasText: 'What is this workspace?' });
  await line.waitFor({ timeout: 10_000 });
  assert.deepEqual((await line.locator('td').allTextContents()).slice(1, 4), ['32', '10', '7'], 'input, cached and output of its one call');
  await usage.locator('[data-role="models"] tbody tr', { hasText: 'openai-compatible/scripted-model' }).waitFor();
  await workbench.screenshot('status-bar-and-usage');
});
