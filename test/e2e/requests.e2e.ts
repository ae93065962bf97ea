import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { MessageRecord } from '../../src/core/wire/records';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// Requests in the real VS Code against the scripted model: a question that took several turns
// (a retry, a "continue") reads as one, its later turns under "N more turns"; and with
// braid.holdPromptUntilAnswer a prompt that fails before its answer is not written and comes
// back into the input to edit.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'requests',
    settings: { ...model.vscodeSettings(), 'braid.holdPromptUntilAnswer': true },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const chat = () => workbench.chatFrame();
const answer = (text: string) => ({ kind: 'text' as const, chunks: [text] });

/** The prompts in the shown session's log, in order. */
async function loggedPrompts(): Promise<string[]> {
  return (await workbench.shownSessionRecords())
    .filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'user')
    .map((r) => JSON.stringify(r.message.content));
}

test('a retry and a "continue" collapse under the request’s first turn; "2 more turns" shows them', async () => {
  model.enqueue(answer('Looking at the parser…'), answer('Fixed the parser.'), answer('All tests pass now.'), answer('Added the line.'));
  await workbench.send('Fix the failing test in parser.ts');
  await workbench.send('Fix the failing test in parser.ts');
  await workbench.send('continue');
  // The newest request is open while it is worked on: all three turns show, under its toggle.
  const toggle = chat().locator('.request-turns button').first();
  assert.equal(await toggle.textContent(), '2 more turns');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await chat().locator('.message.assistant', { hasText: 'All tests pass now.' }).waitFor();
  await workbench.screenshot('request-open-while-newest');

  await workbench.send('Now add a changelog line');
  // A new question: the request before collapses to its first turn and the toggle.
  await chat().locator('.request-turns button[aria-expanded="false"]').waitFor();
  assert.equal(await chat().locator('.message.assistant', { hasText: 'All tests pass now.' }).count(), 0);
  assert.equal(await chat().locator('.message.assistant', { hasText: 'Looking at the parser…' }).count(), 1);
  assert.equal(await chat().locator('.message.user', { hasText: 'Fix the failing test in parser.ts' }).count(), 1);
  await workbench.screenshot('request-collapsed');

  await chat().locator('.request-turns button', { hasText: '2 more turns' }).click();
  await chat().locator('.message.assistant', { hasText: 'All tests pass now.' }).waitFor();
  assert.equal(await chat().locator('.message.user', { hasText: 'Fix the failing test in parser.ts' }).count(), 2);
  assert.equal(await chat().locator('.request-turns button').first().getAttribute('aria-expanded'), 'true');
  await workbench.screenshot('request-expanded');
  assert.equal((await loggedPrompts()).length, 4, 'the log keeps every turn: collapsing is only how the chat shows them');
});

test('held: a prompt the model fails before any answer is not written and comes back into the input', async () => {
  await workbench.newSession();
  model.enqueue(answer('There are no notes yet.'));
  await workbench.send('What is in the notes?');
  const before = await workbench.shownSessionRecords();

  model.enqueue({ kind: 'httpError', status: 400, message: 'The request was malformed; rewrite it.' });
  const status = await workbench.send('Summarise teh notes plz', 'failed');
  assert.match(status, /malformed/);
  const input = chat().locator('[data-role="input"]');
  assert.equal(await input.inputValue(), 'Summarise teh notes plz', 'the prompt is back in the input');
  assert.equal(await chat().locator('.message.user', { hasText: 'Summarise teh notes plz' }).count(), 0, 'it left the transcript');
  assert.match((await chat().locator('[data-role="hint"]').textContent()) ?? '', /not sent .* back in the input/);
  assert.deepEqual(await workbench.shownSessionRecords(), before, 'the log is as it was');
  await workbench.screenshot('held-prompt-back-in-input');

  // Rewritten and sent again: shown pending until its answer, then written with it.
  model.enqueue({ kind: 'text', chunks: ['The notes ', 'hold a first draft.'], chunkDelayMs: 400 });
  await input.fill('Summarise the notes, please');
  await input.press('Enter');
  await chat().locator('.message.user', { hasText: 'Summarise the notes, please' }).waitFor();
  await workbench.screenshot('held-prompt-pending');
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 15_000 });
  const prompts = await loggedPrompts();
  assert.equal(prompts.length, 2);
  assert.match(prompts[1]!, /Summarise the notes, please/);
  assert.doesNotMatch(prompts.join('\n'), /teh notes/);
});
