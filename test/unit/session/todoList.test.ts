import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyRecord, emptyFold, todoListOf } from '../../../src/core/format/logFold';
import { scanWireLog } from '../../../src/core/wire/wireReader';
import { staleTodoReminder, TODO_STALE_TURNS, type TodoItem } from '../../../src/core/format/todoList';
import { reminderText } from '../../../src/core/format/reminder';
import { forkSession } from '../../../src/core/store/fork';
import { todoTool } from '../../../src/core/tools/todoTool';
import type { MessageRecord, WireRecord } from '../../../src/core/wire/records';
import { fauxAssistantMessage, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';
import path from 'node:path';
import { braidIn } from '../../support/cli';

// The todo_write tool: the model keeps its list, the log's fold derives it from the tool's
// results (so a fork and a rewind have it as of their turn), and a list left unfinished and
// untouched for TODO_STALE_TURNS turns earns the model a reminder.

const PLAN: TodoItem[] = [
  { text: 'Read the parser', status: 'in_progress' },
  { text: 'Fix the off-by-one', status: 'pending' },
];
const PLAN_LATER: TodoItem[] = [
  { text: 'Read the parser', status: 'done' },
  { text: 'Fix the off-by-one', status: 'in_progress' },
];

test('the tool accepts a whole list and says it back; a malformed one is refused, saying why', async () => {
  const tool = todoTool();
  const result = await tool.execute('call-1', { todos: PLAN });
  assert.deepEqual(result.details, { todos: PLAN });
  assert.deepEqual(result.content, [{ type: 'text', text: 'The todo list now reads:\n[~] Read the parser\n[ ] Fix the off-by-one' }]);
  const empty = await tool.execute('call-2', { todos: [] });
  assert.match(JSON.stringify(empty.content), /the todo list is empty/);
  await assert.rejects(tool.execute('call-3', { todos: [{ text: 'x', status: 'started' }] }), /Item 1 has status "started"; use pending, in_progress or done/);
  await assert.rejects(tool.execute('call-4', { todos: [{ text: '  ', status: 'done' }] }), /Item 1 has no text/);
  await assert.rejects(tool.execute('call-5', { todos: 'all of it' }), /todos must be a list/);
  const many = Array.from({ length: 51 }, (_, i) => ({ text: `step ${i}`, status: 'pending' }));
  await assert.rejects(tool.execute('call-6', { todos: many }), /at most 50 items; this one has 51/);
});

test('the reminder comes when an unfinished list went TODO_STALE_TURNS turns without an update, and every as many turns after', () => {
  const list = { turn: 2, items: PLAN };
  const reminded = [3, 4, 5, 6, 7, 8, 9].filter((turn) => staleTodoReminder(list, turn) !== undefined);
  assert.equal(TODO_STALE_TURNS, 3);
  assert.deepEqual(reminded, [6, 9], 'turns 3, 4 and 5 went by without a call: turn 6 is reminded, then turn 9');
  assert.match(staleTodoReminder(list, 6)!, /not updated it for 3 turns:\n\[~\] Read the parser\n\[ \] Fix the off-by-one/);
  assert.equal(staleTodoReminder({ turn: 2, items: PLAN.map((i) => ({ ...i, status: 'done' as const })) }, 6), undefined, 'a finished list');
  assert.equal(staleTodoReminder({ turn: 2, items: [] }, 6), undefined, 'a cleared list');
  assert.equal(staleTodoReminder(null, 6), undefined, 'no list');
});

/** One turn whose model writes the list, then answers. */
function writesList(f: SessionFixture, items: readonly TodoItem[]): void {
  f.faux.setResponses([fauxAssistantMessage(fauxToolCall('todo_write', { todos: items }), { stopReason: 'toolUse' }), fauxAssistantMessage('Noted.')]);
}

function userRecords(records: readonly WireRecord[]): MessageRecord[] {
  return records.filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'user');
}

/** The system reminders of a user message record. */
function remindersOf(record: MessageRecord): string[] {
  const content = record.message.content;
  if (typeof content === 'string') return [];
  return content.flatMap((b) => (b.type === 'text' ? [reminderText(b.text)].filter((x): x is string => x !== undefined) : []));
}

test('in a session: the fold keeps the list per turn, a fork and a rewind carry it as of their turn, a stale list is reminded', async () => {
  const f = await sessionFixture();
  try {
    const session = await f.open();
    assert.equal(session.todos(), null, 'no list before any call');
    writesList(f, PLAN);
    await session.submit('Fix the parser');
    await session.waitForIdle();
    assert.deepEqual(session.todos(), { turn: 1, items: PLAN });
    writesList(f, PLAN_LATER);
    await session.submit('Go on');
    await session.waitForIdle();
    assert.deepEqual(session.todos(), { turn: 2, items: PLAN_LATER });

    // A call the tool refuses changes nothing.
    f.faux.setResponses([
      fauxAssistantMessage(fauxToolCall('todo_write', { todos: [{ text: 'x', status: 'maybe' }] }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('Oops.'),
    ]);
    await session.submit('Anything else?');
    await session.waitForIdle();
    assert.deepEqual(session.todos(), { turn: 2, items: PLAN_LATER }, 'turn 3 refused call left the list of turn 2');

    // Turns 3, 4 and 5 go by without an update: turn 6 carries the reminder, turns 3 to 5 do not.
    for (const prompt of ['One', 'Two', 'Three']) {
      f.faux.setResponses([fauxAssistantMessage('Fine.')]);
      await session.submit(prompt);
      await session.waitForIdle();
    }
    const prompts = userRecords(f.records(session.id));
    assert.equal(prompts.length, 6);
    const stale = prompts.map((p) => remindersOf(p).some((r) => r.includes('Your todo list has unfinished items')));
    assert.deepEqual(stale, [false, false, false, false, false, true]);
    assert.match(remindersOf(prompts[5]!).join('\n'), /\[x\] Read the parser\n\[~\] Fix the off-by-one/);

    // The fold kept by the index has the list; so does a fresh fold of the log.
    const fold = emptyFold();
    scanWireLog(f.store.layout.agentLog(f.store.locate(session.id)), (r, offset, length) => applyRecord(fold, r, offset, length));
    assert.deepEqual(todoListOf(fold), { turn: 2, items: PLAN_LATER });
    assert.deepEqual(todoListOf(f.store.index.summaryOf(session.id)!.fold), { turn: 2, items: PLAN_LATER });

    // A fork at turn 1 has the list of turn 1; at turn 2 and after, the list of turn 2.
    const atOne = await forkSession(f.store, session.id, { turn: 1 });
    assert.deepEqual(todoListOf(f.store.index.summaryOf(atOne.id)!.fold), { turn: 1, items: PLAN });
    const atFour = await forkSession(f.store, session.id, { turn: 4 });
    assert.deepEqual(todoListOf(f.store.index.summaryOf(atFour.id)!.fold), { turn: 2, items: PLAN_LATER });

    // A rewind to before turn 2's prompt leaves the list of turn 1; to before turn 1's, none.
    await session.rewind(prompts[1]!.id, { files: false });
    assert.deepEqual(session.todos(), { turn: 1, items: PLAN });
    await session.rewind(prompts[0]!.id, { files: false });
    assert.equal(session.todos(), null);
  } finally {
    await f.cleanup();
  }
});

test('braid show prints the todo list as of the last turn, and --json gives it', async () => {
  const f = await sessionFixture();
  try {
    const session = await f.open();
    writesList(f, PLAN_LATER);
    await session.submit('Fix the parser');
    await session.waitForIdle();
    await session.close();
    const cli = (...args: string[]) => braidIn(['--data-dir', path.join(f.root, 'store'), ...args], { cwd: f.workspace });
    const shown = await cli('show', session.id);
    assert.equal(shown.code, 0, shown.err);
    assert.match(shown.out, /^todo list \(turn 1\):\n {2}\[x\] Read the parser\n {2}\[~\] Fix the off-by-one$/m);
    const json = await cli('show', session.id, '--json');
    assert.deepEqual((JSON.parse(json.out) as { todos: unknown }).todos, { turn: 1, items: PLAN_LATER });
  } finally {
    await f.cleanup();
  }
});
