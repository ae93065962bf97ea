import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SUGGESTION_REQUEST } from '../../src/core/session/suggestion';
import type { MessageRecord, UsageRecord } from '../../src/core/wire/records';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// Next-prompt suggestions in a real VS Code against the scripted model server, with
// braid.suggestions on: after a turn the composer shows one as ghost text, Tab takes it, Enter
// sends it, typing or Escape dismisses the next one.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'suggestions',
    settings: { ...model.vscodeSettings(), 'braid.suggestions': 'on' },
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
const ghost = (text: string) => chat().locator(`[data-role="input"][data-suggestion="${text}"]`);
const DEFAULT_PLACEHOLDER = /^Ask Braid…/;

test('after a turn the input shows a suggestion; Tab takes it and Enter runs it; it is never part of the session', async () => {
  model.enqueue(
    { kind: 'text', chunks: ['greet.ts exports ', 'a greeting: hi.'], usage: { prompt: 400, completion: 8 } },
    { kind: 'text', chunks: ['"Change the greeting ', 'to hello"'], usage: { prompt: 420, completion: 6, cached: 400 } },
  );
  await workbench.send('What does greet.ts say?');
  await ghost('Change the greeting to hello').waitFor({ timeout: 15_000 });
  assert.equal(await input().getAttribute('placeholder'), 'Change the greeting to hello');
  assert.equal(await input().inputValue(), '', 'ghost text only: the input is still empty');
  assert.equal(await chat().locator('[data-role="hint"]').textContent(), 'Tab takes the suggestion.');
  const asked = model.requests.at(-1)!.body;
  assert.equal(asked.messages!.at(-1)!.content, SUGGESTION_REQUEST, 'one side call asked for it');
  await workbench.screenshot('suggestion-ghost-text');

  await input().focus();
  await input().press('Tab');
  assert.equal(await input().inputValue(), 'Change the greeting to hello', 'Tab puts it in the input');
  assert.equal(await input().getAttribute('data-suggestion'), null);
  assert.equal(await chat().locator('[data-role="hint"]').textContent(), '');

  model.enqueue({ kind: 'text', chunks: ['I would change it to hello.'] }, { kind: 'text', chunks: ['Run the tests'] });
  await input().press('Enter');
  await chat().locator('.message.user', { hasText: 'Change the greeting to hello' }).waitFor({ timeout: 15_000 });
  await chat().locator('.message.assistant', { hasText: 'I would change it to hello.' }).waitFor({ timeout: 15_000 });
  await ghost('Run the tests').waitFor({ timeout: 15_000 });

  const records = await workbench.shownSessionRecords();
  const prompts = records.filter((r) => r.t === 'message' && (r as MessageRecord).message.role === 'user');
  assert.equal(prompts.length, 2, 'two prompts, no suggestion request among them');
  assert.doesNotMatch(JSON.stringify(records.filter((r) => r.t === 'message')), /Suggest the next prompt|Run the tests/);
  assert.deepEqual(
    records.filter((r) => r.t === 'usage').map((r) => (r as UsageRecord).purpose ?? 'turn'),
    ['turn', 'suggestion', 'turn', 'suggestion'],
  );
});

test('typing dismisses the suggestion for good; Escape dismisses the next one', async () => {
  await input().focus();
  await input().press('x');
  assert.equal(await input().getAttribute('data-suggestion'), null, 'typing dismisses it');
  await input().press('Backspace');
  assert.match((await input().getAttribute('placeholder')) ?? '', DEFAULT_PLACEHOLDER, 'emptied again, the input does not bring it back');
  await input().press('Tab');
  assert.equal(await input().inputValue(), '', 'Tab has nothing to take');

  model.enqueue({ kind: 'text', chunks: ['Tests pass.'] }, { kind: 'text', chunks: ['Commit the change'] });
  await workbench.send('Run the tests');
  await ghost('Commit the change').waitFor({ timeout: 15_000 });
  await workbench.screenshot('next-suggestion');
  await input().focus();
  await input().press('Escape');
  assert.equal(await input().getAttribute('data-suggestion'), null, 'Escape dismisses it');
  assert.match((await input().getAttribute('placeholder')) ?? '', DEFAULT_PLACEHOLDER);
  assert.equal(model.pending, 0, 'every scripted reply was asked for, none more');
});
