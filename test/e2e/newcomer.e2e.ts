import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { demoAgentReply } from '../../src/demo/demoAgent';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// A newcomer's first five minutes with `npm start`'s demo agent, in a real VS Code: the welcome,
// a question about the README (a tool card and an answer about it), a file created after an
// approval with its diff, a rewind with files (the file is gone) and Undo (it is back), from the
// chat and from the notification. With BRAID_README_SCREENSHOTS=1 some steps also become the
// README's pictures in docs/images/.
const demo = new ScriptedModelServer((request) => demoAgentReply(request.body), 'braid-demo');
const README = [
  '# Sprocket',
  '',
  'Sprocket turns plain-text recipes into shopping lists, grouped by aisle.',
  '',
  '## Install',
  '',
  '```sh',
  'npm install -g sprocket',
  '```',
  '',
  '## Usage',
  '',
  'Run `sprocket recipes/*.md` to print the list.',
  '',
  '## Contributing',
  '',
  'Issues and pull requests are welcome.',
  '',
].join('\n');
let workbench: Workbench;

before(async () => {
  const baseUrl = await demo.start();
  workbench = await Workbench.launch({
    name: 'newcomer',
    settings: {
      'braid.provider': 'openai-compatible',
      'braid.model': 'braid-demo',
      'braid.baseUrl': baseUrl,
      'braid.demoModel': true,
      'workbench.startupEditor': 'none',
    },
    files: { 'README.md': README, 'package.json': '{\n  "name": "sprocket",\n  "version": "0.3.0"\n}\n' },
  });
  // A repository with an origin: Braid tells the model about it in a hidden reminder, which the demo must never quote.
  for (const args of [
    ['init', '-q'],
    ['remote', 'add', 'origin', 'https://example.invalid/team/secret-origin.git'],
  ]) {
    spawnSync('git', args, { cwd: workbench.workspace });
  }
});

after(async () => {
  await workbench?.close();
  await demo.close();
});

const chat = () => workbench.chatFrame();
const hello = () => path.join(workbench.workspace, 'hello.txt');

/** Saves a step's screenshot, and with BRAID_README_SCREENSHOTS=1 also as docs/images/<name>.png. */
const shot = (step: string, readmeName?: string) => workbench.screenshot(step, readmeName);

/**
 * A window as someone would arrange it to work with Braid: the side bar widened to about a third
 * of the window, the Sessions tree kept short above the Chat view, the README open in the editor.
 */
async function arrangeWindow(): Promise<void> {
  const page = workbench.page;
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  if (sidebar) {
    const edge = sidebar.x + sidebar.width + 1;
    await page.mouse.move(edge, sidebar.y + sidebar.height / 2);
    await page.mouse.down();
    await page.mouse.move(edge + 200, sidebar.y + sidebar.height / 2, { steps: 5 });
    await page.mouse.up();
  }
  const chatHeader = await page.locator('.pane-header', { hasText: 'Chat' }).first().boundingBox();
  if (chatHeader) {
    await page.mouse.move(chatHeader.x + chatHeader.width / 2, chatHeader.y - 1);
    await page.mouse.down();
    await page.mouse.move(chatHeader.x + chatHeader.width / 2, 230, { steps: 5 });
    await page.mouse.up();
  }
  await page.mouse.move(900, 600); // off the sash, whose highlight would show in the pictures
  await workbench.openPalette();
  await page.locator('.quick-input-widget input').fill('README.md');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'README.md' }).first().waitFor();
  await page.locator('.quick-input-widget input').press('Enter');
  await page.locator('.tab', { hasText: 'README.md' }).waitFor();
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('a new session greets with what Braid does, three prompts the demo acts on, and the model', async () => {
  await workbench.openBraid();
  await chat().locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  const welcome = chat().locator('[data-role="welcome"]');
  await welcome.waitFor();
  // Legible in the side bar's default width (about 300 px): nothing runs off to the side.
  const fit = await welcome.evaluate((e) => ({ width: e.clientWidth, overflow: e.scrollWidth - e.clientWidth }));
  assert.ok(fit.width <= 320, `the Chat view starts narrow (${fit.width} px)`);
  assert.equal(fit.overflow, 0, 'the welcome fits its width');
  await shot('welcome-narrow');
  await arrangeWindow();
  assert.match((await welcome.textContent()) ?? '', /A coding agent for this workspace/);
  assert.deepEqual(await welcome.locator('button.example').allTextContents(), [
    'Explain the README',
    'Create hello.txt',
    'Use a subagent to survey this folder',
  ]);
  assert.match((await welcome.locator('[data-role="welcome-model"]').textContent()) ?? '', /demo agent/);
  assert.equal(await chat().locator('[data-role="demo"]').isVisible(), true, 'the demo badge is shown');
  await shot('welcome', 'welcome');
});

test('asking about the README shows the tool cards and an answer about the README, never the hidden context', async () => {
  await chat().locator('button.example', { hasText: 'Explain the README' }).click();
  assert.equal(await chat().locator('[data-role="input"]').inputValue(), 'Explain the README');
  await chat().locator('[data-role="input"]').press('Enter');
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 20_000 });
  assert.equal(await chat().locator('[data-role="welcome"]').isVisible(), false, 'the welcome gives way to the conversation');
  await chat().locator('.tool', { hasText: 'list_dir' }).waitFor();
  assert.equal(await chat().locator('.tool', { hasText: 'read_file README.md' }).getAttribute('data-status'), 'done');
  const answer = (await chat().locator('.message.assistant').last().textContent()) ?? '';
  assert.match(answer, /titled Sprocket/);
  assert.match(answer, /Sprocket turns plain-text recipes into shopping lists/);
  assert.match(answer, /Install[\s\S]*Usage[\s\S]*Contributing/);
  assert.doesNotMatch(answer, /secret-origin|system-reminder|Git context/);
  await shot('readme-explained', 'explain-readme');
});

test('creating a file asks first with the diff; after Allow the file exists', async () => {
  await chat().locator('[data-role="input"]').fill('Create hello.txt');
  await chat().locator('[data-role="input"]').press('Enter');
  const approval = chat().locator('.approval');
  await approval.waitFor({ timeout: 20_000 });
  assert.match((await approval.textContent()) ?? '', /Braid wants to change a file: Create hello\.txt/);
  assert.deepEqual(await approval.locator('.approval-detail .diff-add').allTextContents(), ['+Hello from Braid!\n']);
  assert.equal(await chat().locator('.tool', { hasText: 'write_file hello.txt' }).locator('.diff').count(), 0, 'the diff is shown once, in the approval');
  assert.equal(fs.existsSync(hello()), false, 'nothing is written before Allow');
  await shot('approval-with-diff', 'approval-diff');
  await approval.locator('button', { hasText: /^Allow$/ }).click();
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 20_000 });
  assert.equal(fs.readFileSync(hello(), 'utf8'), 'Hello from Braid!\n');
  assert.match((await chat().locator('.message.assistant').last().textContent()) ?? '', /Created hello\.txt/);
  await shot('file-created');
});

/** Rewinds to before "Create hello.txt", restoring files, from the prompt's own Rewind action. */
async function rewindCreate(): Promise<void> {
  const prompt = chat().locator('.message.user', { hasText: 'Create hello.txt' });
  await prompt.hover();
  await prompt.locator('.message-actions button', { hasText: 'Rewind' }).click();
  const dialog = workbench.page.locator('.monaco-dialog-box');
  await dialog.waitFor();
  assert.match((await dialog.textContent()) ?? '', /Rewind 1 turn of this session\?/);
  assert.match((await dialog.textContent()) ?? '', /delete hello\.txt/);
  await workbench.screenshot('rewind-dialog');
  await dialog.locator('.monaco-button', { hasText: 'Rewind and Restore Files' }).click();
  await waitFor(() => !fs.existsSync(hello()), 'hello.txt to be removed by the rewind');
  await chat().locator('[data-role="rewound"]').waitFor();
}

test('rewinding with files removes the file, and Undo in the chat brings the turn and the file back', async () => {
  await rewindCreate();
  assert.equal(await chat().locator('.message.user', { hasText: 'Create hello.txt' }).count(), 0, 'the turn left the transcript');
  assert.equal(await chat().locator('[data-role="input"]').inputValue(), 'Create hello.txt', 'the prompt is back in the input');
  assert.equal((await chat().locator('[data-role="rewound"]').textContent())?.trim(), 'Rewound 1 turn and restored 1 file. Undo');
  const toast = workbench.page.locator('.notification-toast', { hasText: 'Rewound 1 turn and restored 1 file.' });
  await toast.waitFor();
  assert.equal(await toast.locator('.monaco-button', { hasText: 'Undo' }).count(), 1, 'the notification offers Undo');
  await shot('rewound', 'rewind-undo');

  await chat().locator('[data-role="undo-rewind"]').click();
  await waitFor(() => fs.existsSync(hello()), 'hello.txt to come back');
  assert.equal(fs.readFileSync(hello(), 'utf8'), 'Hello from Braid!\n');
  await chat().locator('.message.user', { hasText: 'Create hello.txt' }).waitFor();
  await waitFor(async () => (await chat().locator('[data-role="input"]').inputValue()) === '', 'the input to be emptied of the rewound prompt');
  assert.equal(await chat().locator('[data-role="rewound"]').isVisible(), false);
  await workbench.page.locator('.notification-toast', { hasText: 'Undid the rewind: 1 turn and 1 file are back.' }).waitFor();
  await shot('undone');
});

test('Undo on the rewind notification does the same', async () => {
  await rewindCreate();
  const toast = workbench.page.locator('.notification-toast', { hasText: 'Rewound 1 turn and restored 1 file.' }).last();
  await toast.locator('.monaco-button', { hasText: 'Undo' }).click();
  await waitFor(() => fs.existsSync(hello()), "hello.txt to come back from the notification's Undo");
  await chat().locator('.message.user', { hasText: 'Create hello.txt' }).waitFor();
  await waitFor(async () => !(await chat().locator('[data-role="rewound"]').isVisible()), 'the Undo bar to go');
  await shot('undone-from-notification');
});

test('a subagent surveys the folder in its own context and reports back', async () => {
  await chat().locator('[data-role="input"]').fill('Use a subagent to survey this folder');
  await chat().locator('[data-role="input"]').press('Enter');
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 20_000 });
  assert.equal(await chat().locator('.tool', { hasText: 'task' }).last().getAttribute('data-status'), 'done');
  assert.match((await chat().locator('.message.assistant').last().textContent()) ?? '', /The subagent reported:[\s\S]*it looks like a Node\.js project/);
  await shot('subagent');
});
