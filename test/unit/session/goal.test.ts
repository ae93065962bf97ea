import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { GoalRun, goalMet } from '../../../src/core/session/goal';
import type { MessageRecord, TurnBeginRecord, WireRecord } from '../../../src/core/wire/records';
import { ScriptedModelServer } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';

// Goal runs over real HTTP: the scripted server answers each turn; the log is read back.
const server = new ScriptedModelServer();
let f: SessionFixture;
before(async () => {
  await server.start();
});
beforeEach(async () => {
  await f?.cleanup();
  f = await sessionFixture();
  server.requests.length = 0;
});
after(async () => {
  await f?.cleanup();
  await server.close();
});

const text = (t: string, usage = { prompt: 100, completion: 10 }) => ({ kind: 'text' as const, chunks: [t], usage });
const turnBegins = (records: WireRecord[]) => records.filter((r): r is TurnBeginRecord => r.t === 'turn_begin');
const userMessages = (records: WireRecord[]) => records.filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'user');

async function run(goal: string, budget = { maxTurns: 10, maxTokens: 0 }) {
  const session = await f.open({ model: () => server.modelChoice() });
  const continued: number[] = [];
  const goalRun = await GoalRun.start(session, goal, { budget, onContinue: (n) => continued.push(n) });
  const end = await goalRun.finished;
  await session.waitForIdle();
  return { session, end, continued, records: f.records(session.id) };
}

test('the goal is met after three turns: the second and third are automatic, and marked so in the log', async () => {
  server.enqueue(text('Started the list.'), text('Half of it done.'), text('All items are done.\n\n**GOAL DONE**'));
  const { end, continued, records } = await run('write the list');
  assert.equal(end.stop, 'done');
  assert.equal(end.turns, 3);
  assert.equal(end.tokens, 330);
  assert.match(end.message, /^Goal done: .*3 turns, 330 tokens/);
  assert.deepEqual(continued, [2, 3]);
  assert.equal(server.requests.length, 3);
  assert.deepEqual(
    turnBegins(records).map((r) => r.auto),
    [undefined, 'goal', 'goal'],
  );
  const users = userMessages(records);
  assert.equal(users[0]!.injected, undefined, 'the goal itself is the user prompt');
  assert.deepEqual(users[1]!.injected, { by: 'braid', kind: 'goal' });
  assert.deepEqual(users[2]!.injected, { by: 'braid', kind: 'goal' });
  // The model was told the goal and the marker with each prompt.
  assert.match(JSON.stringify(server.requests[0]!.body.messages), /GOAL DONE/);
  assert.match(JSON.stringify(server.requests[1]!.body.messages?.at(-1)), /Continue toward the goal: write the list/);
});

test('the budget of turns is spent: the run stops after it, saying so', async () => {
  server.enqueue(text('Working.'), text('Still working.'));
  const { end, records } = await run('never finish', { maxTurns: 2, maxTokens: 0 });
  assert.equal(end.stop, 'budget');
  assert.equal(end.turns, 2);
  assert.match(end.message, /budget of 2 turns is spent/);
  assert.equal(server.requests.length, 2);
  assert.equal(turnBegins(records).length, 2);
});

test('the budget of tokens is spent: no turn starts past it', async () => {
  server.enqueue(text('Working.'), text('Still working.'));
  const { end } = await run('never finish', { maxTurns: 10, maxTokens: 200 });
  assert.equal(end.stop, 'budget');
  assert.equal(end.turns, 2);
  assert.match(end.message, /budget of 200 tokens is spent \(2 turns, 220 tokens\)/);
  assert.equal(server.requests.length, 2);
});

test('a failed turn ends the run: no automatic turn follows it', async () => {
  server.enqueue(text('Working.'), { kind: 'httpError', status: 400, message: 'scripted refusal' });
  const { end, records } = await run('fail on the way');
  assert.equal(end.stop, 'failed');
  assert.equal(end.turns, 2);
  assert.match(end.message, /^Goal stopped: a turn failed \(.*scripted refusal/);
  assert.equal(server.requests.length, 2);
  const ends = records.filter((r) => r.t === 'turn_end').map((r) => (r as { outcome: string }).outcome);
  assert.deepEqual(ends, ['completed', 'failed']);
});

test('stopping the run cancels its turn and sends no other', async () => {
  server.enqueue(text('Working.'), { kind: 'stall', chunks: ['Half'] });
  const session = await f.open({ model: () => server.modelChoice() });
  const goalRun = await GoalRun.start(session, 'stop me', {});
  await new Promise<void>((resolve) => {
    const off = session.onEvent((e) => e.type === 'text-delta' && e.turn === 2 && (off(), resolve()));
  });
  await goalRun.stop();
  const end = await goalRun.finished;
  await session.waitForIdle();
  assert.equal(end.stop, 'stopped');
  assert.match(end.message, /stopped by the user/);
  assert.equal(server.requests.length, 2);
  const ends = f.records(session.id).filter((r) => r.t === 'turn_end');
  assert.deepEqual(
    ends.map((r) => (r as { outcome: string }).outcome),
    ['completed', 'cancelled'],
  );
});

test('GOAL DONE counts only as a line of its own', () => {
  assert.equal(goalMet('Done.\nGOAL DONE'), true);
  assert.equal(goalMet('Done.\n`GOAL DONE.`\n'), true);
  assert.equal(goalMet('I will write GOAL DONE when finished.'), false);
  assert.equal(goalMet('goal done'), false);
});

test('closing the session ends the run as stopped, saying why', async () => {
  server.enqueue(text('Working.'), { kind: 'stall', chunks: ['Half'] });
  const session = await f.open({ model: () => server.modelChoice() });
  const goalRun = await GoalRun.start(session, 'close me', {});
  await new Promise<void>((resolve) => {
    const off = session.onEvent((e) => e.type === 'text-delta' && e.turn === 2 && (off(), resolve()));
  });
  await session.close();
  const end = await goalRun.finished;
  assert.equal(end.stop, 'stopped');
  assert.match(end.message, /^Goal stopped: the session was closed \(2 turns/);
});
