import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { MessageRecord } from '../../src/core/wire/records';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// The model's todo list in the real VS Code against the scripted model: its todo_write call shows
// the list as a checklist above the composer while the turn goes on, a later call updates it, the
// list folds to its headline, and it comes back with the session after a reload (from the log).
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'todoList',
    settings: model.vscodeSettings(),
    files: { 'parser.ts': 'export const parse = (s: string) => s.split(",");\n' },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const chat = () => workbench.chatFrame();
const checklist = () => chat().locator('[data-role="todos"]');
const writeTodos = (id: string, todos: { text: string; status: string }[]) => ({
  kind: 'toolCalls' as const,
  calls: [{ id, name: 'todo_write', arguments: JSON.stringify({ todos }) }],
});

/** The checklist's rows as "status text". */
async function rows(): Promise<string[]> {
  return checklist()
    .locator('.todo')
    .evaluateAll((items) => items.map((i) => `${(i as HTMLElement).dataset.status} ${i.querySelector('.todo-text')?.textContent}`));
}

test('a todo_write call shows the list above the composer; a later call updates it', async () => {
  assert.equal(await checklist().isHidden(), true, 'no list before the model writes one');
  model.enqueue(
    writeTodos('t1', [
      { text: 'Read parser.ts', status: 'in_progress' },
      { text: 'Handle quoted commas', status: 'pending' },
      { text: 'Add a test for empty input', status: 'pending' },
    ]),
    { kind: 'text', chunks: ['I have a plan; starting with the parser.'] },
  );
  await workbench.send('Make the parser handle quoted commas');
  assert.ok(
    (model.requests[0]!.body.tools as { function: { name: string } }[]).some((t) => t.function.name === 'todo_write'),
    'the model is offered todo_write',
  );
  await checklist().waitFor();
  assert.deepEqual(await rows(), ['in_progress Read parser.ts', 'pending Handle quoted commas', 'pending Add a test for empty input']);
  assert.equal(await checklist().locator('.todos-title').textContent(), 'Todos · 0 of 3 done');

  model.enqueue(
    writeTodos('t2', [
      { text: 'Read parser.ts', status: 'done' },
      { text: 'Handle quoted commas', status: 'in_progress' },
      { text: 'Add a test for empty input', status: 'pending' },
    ]),
    { kind: 'text', chunks: ['Read it; now the quoted commas.'] },
  );
  await workbench.send('Go on');
  await checklist().locator('.todo[data-status="done"]').waitFor();
  assert.deepEqual(await rows(), ['done Read parser.ts', 'in_progress Handle quoted commas', 'pending Add a test for empty input']);
  await workbench.screenshot('todo-checklist', 'todo-list');
  const results = (await workbench.shownSessionRecords()).filter(
    (r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'toolResult',
  );
  assert.deepEqual(
    results.map((r) => r.message.role === 'toolResult' && r.message.toolName),
    ['todo_write', 'todo_write'],
    'the log holds both calls',
  );
});

test('the list folds to its headline and comes back with the session after a reload', async () => {
  await checklist().locator('.todos-toggle').click();
  assert.equal(await checklist().locator('.todo').count(), 0, 'folded: no rows');
  assert.equal(await checklist().locator('.todos-title').textContent(), 'Todos · 1 of 3 done · Handle quoted commas');
  await workbench.screenshot('todo-checklist-folded');
  const id = await chat().locator('body').getAttribute('data-session');
  await workbench.reloadTo(id!);
  await checklist().locator('.todo').first().waitFor();
  assert.deepEqual(await rows(), ['done Read parser.ts', 'in_progress Handle quoted commas', 'pending Add a test for empty input']);
});
