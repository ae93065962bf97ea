import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../support/modelServer';

const server = new ScriptedModelServer();
let baseUrl = '';
before(async () => {
  baseUrl = await server.start();
});
after(() => server.close());

async function post(body: object): Promise<Response> {
  return fetch(`${baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** The parts of an OpenAI chat completion (whole or a streamed chunk) these tests read. */
interface Completion {
  choices: Array<{
    message?: { content: string };
    delta?: { tool_calls?: Array<{ index: number; function: { arguments?: string } }> };
    finish_reason: string | null;
  }>;
  usage?: { prompt_tokens_details: { cached_tokens: number } };
}

function sseEvents(text: string): Completion[] {
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: ') && !e.includes('[DONE]'))
    .map((e) => JSON.parse(e.slice(6)));
}

test('non-streaming requests get one whole completion with usage', async () => {
  server.enqueue({ kind: 'text', chunks: ['a', 'b'], usage: { prompt: 5, completion: 2, cached: 1 } });
  const res = await post({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
  const body = (await res.json()) as Completion;
  assert.equal(body.choices[0].message?.content, 'ab');
  assert.equal(body.choices[0].finish_reason, 'stop');
  assert.equal(body.usage?.prompt_tokens_details.cached_tokens, 1);
});

test('streamed tool calls arrive as indexed deltas whose arguments join to the script', async () => {
  server.enqueue({
    kind: 'toolCalls',
    calls: [
      { id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { id: 'call_2', name: 'list_dir', arguments: '{"path":"."}' },
    ],
  });
  const res = await post({ model: 'm', stream: true, messages: [] });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const events = sseEvents(await res.text());
  const args = ['', ''];
  for (const e of events) for (const call of e.choices[0]?.delta?.tool_calls ?? []) args[call.index] += call.function.arguments ?? '';
  assert.deepEqual(
    args.map((a) => JSON.parse(a)),
    [{ path: 'a.txt' }, { path: '.' }],
  );
  assert.equal(events.at(-1)!.choices[0].finish_reason, 'tool_calls');
});

test('an empty script refuses with HTTP 500 so a test that forgot a reply fails loudly', async () => {
  assert.equal(server.pending, 0);
  const res = await post({ model: 'm', messages: [] });
  assert.equal(res.status, 500);
});
