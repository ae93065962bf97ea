import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { MessageRecord, TurnBeginRecord } from '../../src/core/wire/records';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// /goal in the real VS Code against the scripted model: the goal is the first prompt, automatic
// turns follow (shown as such, not as the user's prompts, and marked in the log) until the model
// writes GOAL DONE; a line under the transcript says why the run ended. Stop ends a run.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({ name: 'goal', settings: model.vscodeSettings(), files: { 'notes.md': 'first draft\n' } });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const chat = () => workbench.chatFrame();
const text = (t: string) => ({ kind: 'text' as const, chunks: [t] });

async function sendGoal(goal: string): Promise<void> {
  await chat().locator('[data-role="input"]').fill(`/goal ${goal}`);
  await chat().locator('[data-role="input"]').press('Enter');
}

test('/goal runs automatic turns until the model says GOAL DONE; each shows as an automatic turn and the log marks it', async () => {
  model.enqueue(
    text('I read the notes: a first draft. Next I will outline the sections.'),
    text('Outlined three sections: intro, body, close.'),
    text('The outline is complete and checked.\n\nGOAL DONE'),
  );
  await sendGoal('Outline the notes into sections');
  const notice = chat().locator('.notice', { hasText: 'Goal done' });
  await notice.waitFor({ timeout: 30_000 });
  assert.match((await notice.textContent()) ?? '', /Goal done: the model says it is met \(3 turns/);
  const automatic = chat().locator('.automatic-turn');
  assert.equal(await automatic.count(), 2, 'the second and third turns are automatic');
  assert.match((await automatic.first().textContent()) ?? '', /Automatic turn: continue toward the goal/);
  assert.equal(await chat().locator('.message.user').count(), 1, 'only the goal is shown as the user prompt');
  await workbench.screenshot('goal-done', 'goal');
  const records = await workbench.shownSessionRecords();
  assert.deepEqual(
    records.filter((r): r is TurnBeginRecord => r.t === 'turn_begin').map((r) => r.auto),
    [undefined, 'goal', 'goal'],
  );
  const users = records.filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'user');
  assert.deepEqual(
    users.map((u) => u.injected?.by),
    [undefined, 'braid', 'braid'],
  );
});

test('Stop during an automatic turn ends the goal run: no further turn, and the line says it was stopped', async () => {
  await workbench.newSession();
  model.enqueue(text('Working on it.'), { kind: 'stall', chunks: ['Still working'] });
  await sendGoal('Keep going');
  await chat().locator('.message.assistant', { hasText: 'Still working' }).waitFor({ timeout: 30_000 });
  await chat().locator('[data-role="stop"]').click();
  const notice = chat().locator('.notice', { hasText: 'Goal stopped' });
  await notice.waitFor({ timeout: 15_000 });
  assert.match((await notice.textContent()) ?? '', /Goal stopped by the user \(2 turns/);
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 15_000 });
  assert.equal(model.pending, 0);
  await workbench.screenshot('goal-stopped');
  const ends = (await workbench.shownSessionRecords()).filter((r) => r.t === 'turn_end').map((r) => (r as { outcome: string }).outcome);
  assert.deepEqual(ends, ['completed', 'cancelled']);
});
