import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { complete, Type, type Context, type Model, type Tool } from '@mariozechner/pi-ai';
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

/** A model of pi-ai's `api` that reaches this server (Anthropic's client adds /v1 itself). */
function modelOf<TApi extends 'openai-responses' | 'anthropic-messages'>(api: TApi): Model<TApi> {
  return {
    id: 'scripted-model',
    name: 'Scripted model',
    api,
    provider: api === 'anthropic-messages' ? 'anthropic' : 'openai',
    baseUrl: api === 'anthropic-messages' ? baseUrl.replace(/\/v1$/, '') : baseUrl,
    reasoning: true,
    input: ['text'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 1_000,
  };
}

const readTool: Tool = { name: 'read_file', description: 'Reads a file', parameters: Type.Object({ path: Type.String() }) };
const prompt: Context = { messages: [{ role: 'user', content: 'read two files', timestamp: Date.now() }], tools: [readTool] };

const toolCallsReply = {
  kind: 'toolCalls',
  thinking: 'Both files matter.',
  text: 'Reading them.',
  calls: [
    { id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
    { id: 'call_2', name: 'read_file', arguments: '{"path":"b.txt"}' },
  ],
  usage: { prompt: 100, completion: 7, cached: 40, cacheWrite: 20 },
} as const;

for (const api of ['openai-responses', 'anthropic-messages'] as const) {
  test(`${api}: pi-ai's client reads the thinking, text, parallel tool calls and usage of a streamed reply`, async () => {
    server.enqueue(toolCallsReply);
    const answer = await complete(modelOf(api), prompt, { apiKey: 'scripted' });
    assert.equal(answer.stopReason, 'toolUse', answer.errorMessage);
    assert.deepEqual(
      answer.content.map((b) => b.type),
      ['thinking', 'text', 'toolCall', 'toolCall'],
    );
    assert.equal(answer.content[0]!.type === 'thinking' && answer.content[0]!.thinking, 'Both files matter.');
    assert.equal(answer.content[1]!.type === 'text' && answer.content[1]!.text, 'Reading them.');
    assert.deepEqual(
      answer.content.flatMap((b) => (b.type === 'toolCall' ? [[b.id.split('|')[0], b.arguments]] : [])),
      [
        ['call_1', { path: 'a.txt' }],
        ['call_2', { path: 'b.txt' }],
      ],
    );
    // OpenAI counts the cached tokens in the input; Anthropic counts reads and writes apart from it.
    const expected = api === 'anthropic-messages' ? { input: 40, cacheRead: 40, cacheWrite: 20 } : { input: 60, cacheRead: 40, cacheWrite: 0 };
    assert.deepEqual({ input: answer.usage.input, cacheRead: answer.usage.cacheRead, cacheWrite: answer.usage.cacheWrite }, expected);
    assert.equal(answer.usage.output, 7);
    assert.equal(server.requests.at(-1)!.path, api === 'anthropic-messages' ? '/v1/messages' : '/v1/responses');
  });

  test(`${api}: text in chunks ends the turn, and a scripted HTTP error reaches the client as its message`, async () => {
    server.enqueue({ kind: 'text', chunks: ['Hel', 'lo'] }, { kind: 'httpError', status: 400, message: 'scripted refusal' });
    const answer = await complete(modelOf(api), prompt, { apiKey: 'scripted' });
    assert.equal(answer.stopReason, 'stop', answer.errorMessage);
    assert.deepEqual(
      answer.content.map((b) => (b.type === 'text' ? b.text : b.type)),
      ['Hello'],
    );
    const failed = await complete(modelOf(api), prompt, { apiKey: 'scripted' });
    assert.equal(failed.stopReason, 'error');
    assert.match(failed.errorMessage ?? '', /scripted refusal/);
  });
}

test('responses: a custom tool call streams its raw input, a namespaced function call names its namespace', async () => {
  server.enqueue({
    kind: 'toolCalls',
    calls: [
      { id: 'call_p', name: 'apply_patch', arguments: '*** Begin Patch\n*** End Patch\n', custom: true },
      { id: 'call_s', name: 'spawn_agent', arguments: '{"message":"go"}', namespace: 'multi_agent_v1' },
    ],
  });
  const res = await fetch(`${baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, input: [] }),
  });
  const events = (await res.text())
    .split('\n\n')
    .filter((e) => e.includes('data: '))
    .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)) as { type: string; delta?: string; item?: Record<string, unknown>; sequence_number: number });
  assert.deepEqual(
    events.map((e) => e.sequence_number),
    events.map((_, i) => i),
  );
  const input = events
    .filter((e) => e.type === 'response.custom_tool_call_input.delta')
    .map((e) => e.delta)
    .join('');
  assert.equal(input, '*** Begin Patch\n*** End Patch\n');
  const done = events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item!);
  assert.deepEqual(
    done.map((i) => [i.type, i.name, i.namespace]),
    [
      ['custom_tool_call', 'apply_patch', undefined],
      ['function_call', 'spawn_agent', 'multi_agent_v1'],
    ],
  );
  assert.equal(events.at(-1)!.type, 'response.completed');
});

test('whole answers (no stream) come in each API’s own shape', async () => {
  server.enqueue(
    { kind: 'text', chunks: ['a', 'b'], usage: { prompt: 9, completion: 2, cached: 4 } },
    { kind: 'text', chunks: ['c'], usage: { prompt: 9, completion: 2, cached: 4 } },
  );
  const post = (route: string) =>
    fetch(`${baseUrl}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [], input: [] }),
    });
  const response = (await (await post('/responses')).json()) as {
    output: Array<{ content: Array<{ text: string }> }>;
    usage: { input_tokens_details: { cached_tokens: number } };
  };
  assert.equal(response.output[0]!.content[0]!.text, 'ab');
  assert.equal(response.usage.input_tokens_details.cached_tokens, 4);
  const message = (await (await post('/messages')).json()) as {
    content: Array<{ text: string }>;
    stop_reason: string;
    usage: { input_tokens: number; cache_read_input_tokens: number };
  };
  assert.deepEqual([message.content[0]!.text, message.stop_reason, message.usage.input_tokens, message.usage.cache_read_input_tokens], ['c', 'end_turn', 5, 4]);
});
