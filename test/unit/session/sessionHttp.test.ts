import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { MessageRecord } from '../../../src/core/wire/records';
import { ScriptedModelServer } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';

// The Session over real HTTP: pi-ai's openai-completions client against the scripted server.
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

const httpModel = () => server.modelChoice();

test('a tool call with invalid JSON arguments gets an error result, and the turn goes on', async () => {
  server.enqueue({ kind: 'toolCalls', calls: [{ id: 'bad', name: 'read_file', arguments: '{"path": "data.json"' }] }, { kind: 'text', chunks: ['Recovered.'] });
  const session = await f.open({ model: httpModel });
  await session.submit('read it');
  await session.waitForIdle();
  const records = f.records(session.id);
  const result = records.find((r) => r.t === 'message' && (r as MessageRecord).message.role === 'toolResult') as MessageRecord | undefined;
  assert.ok(result, 'the broken call still got a result');
  assert.equal(f.store.get(session.id).status, 'idle');
  assert.match(JSON.stringify(records.at(-3)), /Recovered/);
});

test('a stream broken mid-answer fails the turn with a readable error; the next turn is answered', async () => {
  server.enqueue({ kind: 'break', chunks: ['Half an ans'] });
  const session = await f.open({ model: httpModel });
  let error = '';
  session.onEvent((e) => {
    if (e.type === 'turn-end') error = e.error ?? '';
  });
  await session.submit('answer please');
  await session.waitForIdle();
  assert.equal(f.store.get(session.id).status, 'error');
  assert.match(error, /connection to the model broke/);
  server.enqueue({ kind: 'text', chunks: ['Whole answer.'] });
  await session.submit('again');
  await session.waitForIdle();
  assert.equal(f.store.get(session.id).status, 'idle');
});

test('Stop while the model stalls ends the turn cancelled', async () => {
  server.enqueue({ kind: 'stall', chunks: ['Thinking'] });
  const session = await f.open({ model: httpModel });
  session.onEvent((e) => {
    if (e.type === 'text-delta') void session.cancel();
  });
  await session.submit('slow one');
  await session.waitForIdle();
  assert.equal(f.store.get(session.id).status, 'aborted');
  const ends = f.records(session.id).filter((r) => r.t === 'turn_end') as Array<{ outcome: string }>;
  assert.equal(ends.at(-1)!.outcome, 'cancelled');
});
