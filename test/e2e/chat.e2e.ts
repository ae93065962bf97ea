import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { readFileReply, ScriptedModelServer } from '../support/modelServer';
import { openStore } from '../support/store';
import { Workbench } from '../support/workbench';

// The Chat view as a user meets it, in a real VS Code against the scripted model server: tool
// cards and approvals, a reload, hiding the view mid-stream, /btw, slash completion, the queue,
// rewind from a message. A 5,000-message transcript has its own spec (chatPaging.e2e.ts).
const model = new ScriptedModelServer();
let workbench: Workbench;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'chat',
    settings: model.vscodeSettings(),
    files: { 'greet.ts': "export const greeting = 'hi';\n" },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const chat = () => workbench.chatFrame();
const input = () => chat().locator('[data-role="input"]');
const sessionId = async () => (await chat().locator('body').getAttribute('data-session')) ?? '';

test('a new session streams an answer with a tool call that asks approval and edits a file; the tree shows it titled', async () => {
  model.enqueue(
    readFileReply('greet.ts'),
    {
      kind: 'toolCalls',
      text: 'I will change the greeting.',
      calls: [{ id: 'e1', name: 'edit_file', arguments: JSON.stringify({ path: 'greet.ts', old_text: "'hi'", new_text: "'hello'" }) }],
    },
    { kind: 'text', chunks: ['The greeting ', 'now says hello.'], chunkDelayMs: 20, usage: { prompt: 120, completion: 9 } },
  );
  await input().fill('Fix the greeting');
  await input().press('Enter');
  const approval = chat().locator('.approval');
  await approval.waitFor({ timeout: 15_000 });
  assert.match((await approval.textContent()) ?? '', /Braid wants to change a file: Edit greet\.ts/);
  const card = chat().locator('.tool', { hasText: 'edit_file greet.ts' });
  assert.equal(await card.getAttribute('data-status'), 'running');
  assert.equal(await card.locator('.diff').count(), 0, 'while asked, the approval card alone shows the diff');
  // The card says which file, how many lines it adds and removes, and shows the change as a diff;
  // the call's arguments are one click away.
  assert.equal(await approval.locator('.approval-change').getAttribute('aria-label'), 'greet.ts: 1 line added, 1 line removed');
  assert.deepEqual(await approval.locator('.approval-change span').allTextContents(), ['greet.ts', '+1', '\u22121']);
  // The whole lines the edit changes, as a diff editor shows them.
  assert.deepEqual(await approval.locator('.approval-detail .diff-del, .approval-detail .diff-add').allTextContents(), [
    "-export const greeting = 'hi';\n",
    "+export const greeting = 'hello';\n",
  ]);
  assert.equal(await approval.locator('.approval-args .tool-args').isVisible(), false, 'the arguments start folded');
  await approval.locator('.approval-args > summary').click();
  assert.deepEqual(JSON.parse((await approval.locator('.approval-args .tool-args').textContent()) ?? ''), {
    path: 'greet.ts',
    old_text: "'hi'",
    new_text: "'hello'",
  });
  await workbench.screenshot('approval-with-diff');
  await approval.locator('button', { hasText: 'Allow for this session' }).click();
  await chat().locator('.message.assistant', { hasText: 'The greeting now says hello.' }).waitFor({ timeout: 15_000 });
  await chat().locator('body[data-turn="idle"]').waitFor();
  assert.equal(fs.readFileSync(path.join(workbench.workspace, 'greet.ts'), 'utf8'), "export const greeting = 'hello';\n");
  assert.equal(await card.getAttribute('data-status'), 'done');
  assert.deepEqual(await card.locator('.diff-del, .diff-add').allTextContents(), ["-export const greeting = 'hi';\n", "+export const greeting = 'hello';\n"]);
  // The card's Open Diff shows the change in VS Code's diff editor, both sides from the checkpoints.
  await card.locator('button', { hasText: 'Open Diff' }).click();
  const diffTab = workbench.page.locator('.tab', { hasText: 'greet.ts (turn 1: before ↔ after)' });
  await diffTab.waitFor({ timeout: 15_000 });
  const diffEditor = workbench.page.locator('.monaco-diff-editor');
  await diffEditor.locator('.editor.original .view-line', { hasText: "export const greeting = 'hi';" }).waitFor({ timeout: 10_000 });
  await diffEditor.locator('.editor.modified .view-line', { hasText: "export const greeting = 'hello';" }).waitFor({ timeout: 10_000 });
  await workbench.screenshot('tool-change-in-diff-editor');
  await workbench.runCommand('View: Close All Editors');
  await diffTab.waitFor({ state: 'detached', timeout: 10_000 });
  assert.match((await chat().locator('[data-role="usage"]').textContent()) ?? '', /Session: \d+ in · \d+ out/);
  const row = workbench.page.locator('.monaco-list-row', { hasText: 'Fix the greeting' });
  await row.waitFor({ timeout: 5_000 });
  assert.match((await row.textContent()) ?? '', /1 turn/);
  await workbench.screenshot('tool-card-and-tree');
});

test('reloading the window brings the transcript back', async () => {
  const id = await sessionId();
  await workbench.reloadTo(id);
  await chat().locator('.message.user', { hasText: 'Fix the greeting' }).waitFor();
  await chat().locator('.message.assistant', { hasText: 'The greeting now says hello.' }).waitFor();
  assert.equal(await chat().locator('.tool', { hasText: 'edit_file greet.ts' }).getAttribute('data-status'), 'done');
  await workbench.screenshot('after-reload');
});

test('a turn still streaming survives hiding and showing the view', async () => {
  const chunks = Array.from({ length: 16 }, (_, i) => `part${i} `);
  model.enqueue({ kind: 'text', chunks, chunkDelayMs: 250 });
  await input().fill('Stream slowly');
  await input().press('Enter');
  await chat().locator('.message.assistant', { hasText: 'part1' }).waitFor({ timeout: 15_000 });
  // Another container hides the Braid views: the webview is destroyed (no retainContextWhenHidden).
  await workbench.page
    .locator('.part.activitybar .action-item a[aria-label^="Explorer"], .part.activitybar .action-item[aria-label^="Explorer"]')
    .first()
    .click();
  await sleep(1_200);
  await workbench.openBraid();
  await chat().locator('body[data-handshake="complete"]').waitFor({ timeout: 15_000 });
  const answer = chat().locator('.message.assistant', { hasText: 'part0' });
  await answer.waitFor({ timeout: 5_000 });
  assert.equal(await chat().locator('body').getAttribute('data-turn'), 'running', 'the page knows the turn still runs');
  await workbench.screenshot('streaming-after-show');
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 15_000 });
  assert.equal((await answer.textContent())?.replace(/\s+/g, ' ').trim(), chunks.join('').trim(), 'every part once, in order');
  assert.equal(await chat().locator('.message.assistant', { hasText: 'part0' }).count(), 1);
});

test('/btw answers in an overlay that never enters the transcript, and can be kept as a fork', async () => {
  const id = await sessionId();
  const store = await openStore(workbench.globalStorage);
  const before = store.history(id).messages.length;
  await store.close();
  const users = await chat().locator('.message.user').count();
  model.enqueue({ kind: 'text', chunks: ['It says hello.'] });
  await input().fill('/btw what does the greeting say?');
  await input().press('Enter');
  const side = chat().locator('[data-role="side"]');
  await side.locator('[data-role="side-answer"]', { hasText: 'It says hello.' }).waitFor({ timeout: 15_000 });
  assert.match((await side.textContent()) ?? '', /what does the greeting say\?/);
  assert.equal(await chat().locator('.message.user').count(), users, 'no prompt was added to the transcript');
  assert.equal(await chat().locator('.message.assistant', { hasText: 'It says hello.' }).count(), 0);
  await workbench.screenshot('side-question-overlay');
  await side.locator('[data-role="side-keep"]').click();
  await workbench.page.locator('.monaco-list-row', { hasText: 'Side: what does the greeting say?' }).waitFor({ timeout: 5_000 });
  const after = await openStore(workbench.globalStorage);
  assert.equal(after.history(id).messages.length, before, 'the session log did not grow');
  await after.close();
  await side.locator('[data-role="side-close"]').click();
  assert.equal(await side.isVisible(), false);
});

test('slash commands complete as you type', async () => {
  await input().fill('');
  await input().pressSequentially('/fo');
  const option = chat().locator('.completion', { hasText: '/fork' });
  await option.waitFor();
  assert.equal(await chat().locator('.completion').count(), 1);
  await workbench.screenshot('slash-completion');
  await input().press('Tab');
  assert.equal(await input().inputValue(), '/fork');
  await input().fill('');
});

test('queue, steer and cancel: chips for waiting prompts, Steer injects one, Cancel drops one, Stop ends the turn', async () => {
  model.enqueue({ kind: 'text', chunks: Array.from({ length: 12 }, (_, i) => `work${i} `), chunkDelayMs: 250 }, { kind: 'text', chunks: ['Steered answer.'] });
  await input().fill('A long task');
  await input().press('Enter');
  await chat().locator('.message.assistant', { hasText: 'work0' }).waitFor({ timeout: 15_000 });
  await input().fill('Also check the tests');
  await input().press('Enter');
  await input().fill('Never run this one');
  await input().press('Enter');
  const chips = chat().locator('.chip');
  await chips.nth(1).waitFor({ timeout: 5_000 });
  assert.deepEqual(await chips.locator('.chip-text').allTextContents(), ['Also check the tests', 'Never run this one']);
  await workbench.screenshot('queued-chips');
  await chips.filter({ hasText: 'Never run this one' }).locator('button', { hasText: 'Cancel' }).click();
  await chips.filter({ hasText: 'Never run this one' }).waitFor({ state: 'detached', timeout: 5_000 });
  await chips.filter({ hasText: 'Also check the tests' }).locator('button', { hasText: 'Steer' }).click();
  await chips.first().waitFor({ state: 'detached', timeout: 5_000 });
  await chat().locator('.message.user', { hasText: 'Also check the tests' }).waitFor({ timeout: 15_000 });
  await chat().locator('.message.assistant', { hasText: 'Steered answer.' }).waitFor({ timeout: 15_000 });
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 15_000 });
  await workbench.screenshot('steered');
  const bodies = model.requests.map((r) => JSON.stringify(r.body.messages));
  assert.ok(
    bodies.some((b) => b.includes('Also check the tests')),
    'the steered prompt reached the model',
  );
  assert.ok(!bodies.some((b) => b.includes('Never run this one')), 'the cancelled prompt never did');

  model.enqueue({ kind: 'stall', chunks: ['Working on it'] });
  await input().fill('Stop me');
  await input().press('Enter');
  await chat().locator('.message.assistant', { hasText: 'Working on it' }).waitFor({ timeout: 15_000 });
  await chat().locator('[data-role="stop"]').click();
  await chat().locator('.turn-status[data-outcome="cancelled"]', { hasText: 'Stopped.' }).waitFor({ timeout: 10_000 });
  assert.equal(await chat().locator('.turn-status[data-outcome="cancelled"]').count(), 1, 'the prompt cancelled in the queue left no status line');
  assert.equal(await chat().locator('[data-role="stop"]').isVisible(), false);
  await workbench.screenshot('stopped');
});

test('after Stop or a failed turn the queue waits, saying why: Resume runs it, Discard drops it', async () => {
  const queueNote = chat().locator('.queue-note');
  const queued = (text: string) => chat().locator('.chip', { hasText: text });
  model.enqueue({ kind: 'stall', chunks: ['Halfway'] }, { kind: 'text', chunks: ['Queued one ran.'] });
  await input().fill('Stop this turn');
  await input().press('Enter');
  await chat().locator('.message.assistant', { hasText: 'Halfway' }).waitFor({ timeout: 15_000 });
  await input().fill('Run after a look');
  await input().press('Enter');
  await queued('Run after a look').waitFor({ timeout: 5_000 });
  await chat().locator('[data-role="stop"]').click();
  await queueNote.filter({ hasText: 'you stopped the turn' }).waitFor({ timeout: 10_000 });
  await sleep(1_000);
  assert.equal(await chat().locator('.message.user', { hasText: 'Run after a look' }).count(), 0, 'the queued prompt waits');
  await workbench.screenshot('queue-paused-after-stop');
  await chat().locator('.queue button', { hasText: 'Resume queue' }).click();
  await chat().locator('.message.assistant', { hasText: 'Queued one ran.' }).waitFor({ timeout: 15_000 });
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 15_000 });

  model.enqueue({ kind: 'httpError', status: 400, message: 'upstream refused', delayMs: 2_000 });
  await input().fill('This one fails');
  await input().press('Enter');
  await input().fill('Written for a success');
  await input().press('Enter');
  await queueNote.filter({ hasText: 'the turn before these failed' }).waitFor({ timeout: 15_000 });
  await workbench.screenshot('queue-paused-after-failure');
  await chat().locator('.queue button', { hasText: 'Discard' }).click();
  await queued('Written for a success').waitFor({ state: 'detached', timeout: 5_000 });
  assert.ok(!model.requests.some((r) => JSON.stringify(r.body.messages).includes('Written for a success')), 'the discarded prompt never reached the model');
});

test('fork from the command palette nests the fork under its source', async () => {
  await workbench.runCommand('Braid: Fork Session');
  const fork = workbench.page.locator('.monaco-list-row', { hasText: 'Fork of Fix the greeting' });
  await fork.waitFor({ timeout: 10_000 });
  assert.equal(await fork.getAttribute('aria-level'), '2');
  await chat().locator('.message.user', { hasText: 'Fix the greeting' }).waitFor();
  await workbench.screenshot('forked-from-palette');
});

test('rewind with files from a message action restores the file', async () => {
  // The fork is open; its own file changes are none, so go back to the source session.
  await workbench.page.locator('.monaco-list-row', { hasText: 'Fix the greeting' }).first().click();
  await chat().locator('.message.user', { hasText: 'Stop me' }).waitFor({ timeout: 10_000 });
  const prompt = chat().locator('.message.user', { hasText: 'Fix the greeting' });
  await chat()
    .locator('[data-role="transcript"]')
    .evaluate((el) => (el.scrollTop = 0));
  await prompt.waitFor();
  await prompt.hover();
  await prompt.locator('.message-actions button', { hasText: 'Rewind' }).click();
  const dialog = workbench.page.locator('.monaco-dialog-box');
  await dialog.waitFor();
  assert.match((await dialog.textContent()) ?? '', /restore greet\.ts/);
  await workbench.screenshot('rewind-preview-from-message');
  await dialog.locator('.monaco-button', { hasText: 'Rewind and Restore Files' }).click();
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && (await input().inputValue()) !== 'Fix the greeting';) await sleep(100);
  assert.equal(await input().inputValue(), 'Fix the greeting');
  assert.equal(fs.readFileSync(path.join(workbench.workspace, 'greet.ts'), 'utf8'), "export const greeting = 'hi';\n");
  assert.equal(await chat().locator('.message.user').count(), 0);
  await workbench.screenshot('rewound-file-restored');
  await input().fill('');
});

test('a write that can make programs run later (a VS Code task) asks like a command, says why, and a denial writes nothing', async () => {
  // Writes were allowed for this session above; a task file still asks, as a command would.
  model.enqueue(
    {
      kind: 'toolCalls',
      calls: [
        {
          id: 't1',
          name: 'write_file',
          arguments: JSON.stringify({
            path: '.vscode/tasks.json',
            content: '{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch pwned","runOptions":{"runOn":"folderOpen"}}]}',
          }),
        },
      ],
    },
    { kind: 'text', chunks: ['Understood, I will not add the task.'] },
  );
  await input().fill('Add a task that runs when the folder opens');
  await input().press('Enter');
  const approval = chat().locator('.approval[data-risk="command"]');
  await approval.waitFor({ timeout: 15_000 });
  assert.match(
    (await approval.locator('.approval-risk').textContent()) ?? '',
    /can make programs run later: VS Code reads settings .* and tasks it runs from it/,
  );
  await workbench.screenshot('approval-command-risk');
  await approval.locator('button', { hasText: 'Deny' }).click();
  await chat().locator('.message.assistant', { hasText: 'Understood, I will not add the task.' }).waitFor({ timeout: 15_000 });
  await chat().locator('body[data-turn="idle"]').waitFor();
  assert.equal(fs.existsSync(path.join(workbench.workspace, '.vscode', 'tasks.json')), false);
});
