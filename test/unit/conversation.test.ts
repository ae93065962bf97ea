import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InMemoryConversation } from '../../src/core/chat/conversation';
import { silentLogger } from '../../src/core/logger';
import { resolveModel } from '../../src/core/model/modelSettings';
import { ScriptedModelServer } from '../support/modelServer';

// The real kernel (pi-agent-core over pi-ai's openai-completions client) against a real HTTP
// server on 127.0.0.1: the same path a user's Ollama or vLLM takes.
const server = new ScriptedModelServer();
let baseUrl = '';
before(async () => { baseUrl = await server.start(); });
after(() => server.close());

function conversation(): InMemoryConversation {
  const model = resolveModel({ provider: 'openai-compatible', model: 'scripted-model', baseUrl, demo: false });
  return new InMemoryConversation({ model, apiKey: () => 'test-key', systemPrompt: 'Be brief.', logger: silentLogger });
}

test('a turn streams the answer in order and reports usage with cached tokens', async () => {
  server.enqueue({ kind: 'text', chunks: ['Hel', 'lo, ', 'world'], usage: { prompt: 30, completion: 3, cached: 12 } });
  const deltas: string[] = [];
  const result = await conversation().run('say hello', (d) => deltas.push(d));
  assert.deepEqual(deltas, ['Hel', 'lo, ', 'world']);
  assert.equal(result.outcome, 'completed');
  assert.equal(result.usage?.output, 3);
  assert.equal(result.usage?.cacheRead, 12);
  assert.equal((result.usage?.input ?? 0) + (result.usage?.cacheRead ?? 0), 30);
  const request = server.requests.at(-1)!;
  assert.equal(request.body.stream, true);
  assert.equal(request.headers.authorization, 'Bearer test-key');
  assert.deepEqual(request.body.messages?.map((m) => m.role), ['system', 'user']);
});

test('the second turn sends the first exchange as history', async () => {
  const chat = conversation();
  server.enqueue({ kind: 'text', chunks: ['first answer'] }, { kind: 'text', chunks: ['second answer'] });
  await chat.run('first question', () => {});
  const result = await chat.run('second question', () => {});
  assert.equal(result.outcome, 'completed');
  const messages = server.requests.at(-1)!.body.messages ?? [];
  assert.deepEqual(messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
  assert.match(JSON.stringify(messages[2]), /first answer/);
});

test('an HTTP error from the server ends the turn failed with its message', async () => {
  server.enqueue({ kind: 'httpError', status: 400, message: 'model is overloaded today' });
  const result = await conversation().run('hi', () => {});
  assert.equal(result.outcome, 'failed');
  assert.match(result.error ?? '', /overloaded/);
});

test('a stream broken mid-way ends the turn failed, keeping what arrived', async () => {
  server.enqueue({ kind: 'break', chunks: ['partial '] });
  const deltas: string[] = [];
  const result = await conversation().run('hi', (d) => deltas.push(d));
  assert.equal(result.outcome, 'failed');
  assert.deepEqual(deltas, ['partial ']);
});

test('Stop during a stalled stream ends the turn cancelled', async () => {
  server.enqueue({ kind: 'stall', chunks: ['thinking about it'] });
  const chat = conversation();
  const deltas: string[] = [];
  const running = chat.run('hi', (d) => {
    deltas.push(d);
    chat.cancel();
  });
  const result = await running;
  assert.equal(result.outcome, 'cancelled');
  assert.deepEqual(deltas, ['thinking about it']);
  assert.equal(chat.isRunning, false);
});
