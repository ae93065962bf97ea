import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { PromptInfo, SessionEvent } from '../../../src/core/session/events';
import type { Session } from '../../../src/core/session/session';
import type { WireRecord } from '../../../src/core/wire/records';
import { ScriptedModelServer, promptOf, type ScriptedReply } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';

// braid.holdPromptUntilAnswer: a prompt reaches the log with its answer; one that fails before
// any answer leaves the log, the index and the conversation as they were.
const server = new ScriptedModelServer();
let f: SessionFixture;
before(async () => {
  await server.start();
  f = await sessionFixture({ 'data.json': '{"a":1}\n' });
});
after(async () => {
  await f.cleanup();
  await server.close();
});

const logOf = (session: Session) => fs.readFileSync(f.store.layout.agentLog(f.store.locate(session.id)), 'utf8');

/** Runs one prompt; returns the events it caused. */
async function run(session: Session, text: string): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  const off = session.onEvent((e) => events.push(e));
  await session.submit(text);
  await session.waitForIdle();
  off();
  return events;
}

const lastPrompt = (events: SessionEvent[]): PromptInfo | undefined =>
  events.filter((e): e is Extract<SessionEvent, { type: 'prompt' }> => e.type === 'prompt').at(-1)?.prompt;

for (const [why, reply] of [
  ['the model refuses the request', { kind: 'httpError', status: 400, message: 'bad request, try again' }],
  ['the connection breaks mid-answer', { kind: 'break', chunks: ['Half an ans'] }],
] as const satisfies ReadonlyArray<readonly [string, ScriptedReply]>) {
  test(`held: when ${why} before any answer, nothing is written and the prompt comes back unsent`, async () => {
    const session = await f.open({ model: () => server.modelChoice(), holdPromptUntilAnswer: true });
    server.enqueue({ kind: 'text', chunks: ['First answer.'] });
    await run(session, 'first prompt');
    const log = logOf(session);
    const row = f.store.get(session.id);
    const conversation = session.messages.length;

    server.enqueue(reply);
    const events = await run(session, 'a prompt to rewrite');
    assert.equal(logOf(session), log, 'the log is byte for byte as it was');
    assert.equal(f.store.get(session.id).turnCount, row.turnCount);
    assert.equal(f.store.get(session.id).status, row.status);
    assert.equal(session.messages.length, conversation, 'the conversation is as it was');
    const prompt = lastPrompt(events);
    assert.equal(prompt?.state, 'failed');
    assert.equal(prompt?.unsent, true);
    assert.equal(prompt?.text, 'a prompt to rewrite');
    assert.ok(prompt?.reason, 'it says why');
    assert.ok(!events.some((e) => e.type === 'message'), 'no message of the failed turn was shown as committed');
    const end = events.find((e) => e.type === 'turn-end');
    assert.equal(end?.type === 'turn-end' && end.unsent, true);

    // The next prompt goes on from the first answer: the failed one was never part of the conversation.
    server.enqueue({ kind: 'text', chunks: ['Second answer.'] });
    await run(session, 'the rewritten prompt');
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages);
    assert.doesNotMatch(sent, /a prompt to rewrite/);
    assert.match(promptOf(server.requests.at(-1)!.body).text, /the rewritten prompt/);
    assert.equal(f.store.get(session.id).turnCount, row.turnCount + 1);
    assert.equal(f.store.get(session.id).status, 'idle');
    await session.close();
  });
}

/** The records without what differs from run to run (times, random ids, durations). */
function shape(records: readonly WireRecord[]): unknown[] {
  const drop = new Set(['ts', 'id', 'promptId', 'messageId', 'toolCallId', 'durationMs', 'timestamp', 'responseId', 'prompt', 'sessionId', 'latencyMs']);
  return JSON.parse(JSON.stringify(records, (key, value: unknown) => (drop.has(key) ? undefined : value)));
}

test('held: a turn that is answered writes the same records as without holding', async () => {
  const shapes: unknown[][] = [];
  for (const hold of [false, true]) {
    const session = await f.open({ model: () => server.modelChoice(), holdPromptUntilAnswer: hold });
    server.enqueue(
      { kind: 'toolCalls', calls: [{ id: 'c1', name: 'read_file', arguments: '{"path": "data.json"}' }] },
      { kind: 'text', chunks: ['It holds a.'] },
    );
    const events = await run(session, 'what is in data.json?');
    assert.equal(lastPrompt(events)?.state, 'completed');
    const messages = events.filter((e) => e.type === 'message').map((e) => (e.type === 'message' ? e.record.message.role : ''));
    assert.deepEqual(messages, ['user', 'assistant', 'toolResult', 'assistant'], 'the prompt is shown once its answer came, before it');
    shapes.push(shape(f.records(session.id)));
    await session.close();
  }
  assert.ok(shapes[0]!.length > 5);
  assert.deepEqual(shapes[1], shapes[0]);
});

test('held: a turn stopped before its answer is written as without holding (only failures are held back)', async () => {
  const session = await f.open({ model: () => server.modelChoice(), holdPromptUntilAnswer: true });
  server.enqueue({ kind: 'stall', chunks: ['Thinking'] });
  session.onEvent((e) => {
    if (e.type === 'text-delta') void session.cancel();
  });
  await run(session, 'slow one');
  const records = f.records(session.id);
  assert.deepEqual(
    records.map((r) => r.t),
    ['agent', 'turn_begin', 'message', 'message', 'usage', 'turn_end'],
  );
  assert.equal((records.at(-1) as { outcome?: string }).outcome, 'cancelled');
  await session.close();
});
