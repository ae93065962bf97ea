import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { resolveModel } from '../../../src/core/model/modelSettings';
import { readWireLog } from '../../../src/core/wire/wireReader';
import type { MessageRecord } from '../../../src/core/wire/records';
import { ScriptedModelServer } from '../../support/modelServer';
import { fauxAssistantMessage, fauxToolCall, sessionFixture } from '../../support/session';

test('task runs subagents in parallel, each with its own log and read-only tools; the parent gets their answers', async () => {
  const f = await sessionFixture({ 'a.txt': 'apples', 'b.txt': 'bananas' });
  try {
    let concurrent = 0;
    let maxConcurrent = 0;
    // Subagents read their file, then answer; the parent delegates two tasks in one message.
    const child = (file: string) => async (context: { messages: Array<{ role: string }> }) => {
      if (!context.messages.some((m) => m.role === 'toolResult')) {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        await new Promise((resolve) => setTimeout(resolve, 50));
        concurrent--;
        return fauxAssistantMessage(fauxToolCall('read_file', { path: file }), { stopReason: 'toolUse' });
      }
      return fauxAssistantMessage(`${file} holds ${JSON.stringify(context.messages.at(-1)).includes('apples') ? 'apples' : 'bananas'}`);
    };
    const route = (context: { messages: Array<{ role: string }> }) => child(JSON.stringify(context.messages).includes('a.txt') ? 'a.txt' : 'b.txt')(context);
    f.faux.setResponses([
      fauxAssistantMessage(
        [
          fauxToolCall('task', { description: 'Read a', prompt: 'What is in a.txt?' }, { id: 't1' }),
          fauxToolCall('task', { description: 'Read b', prompt: 'What is in b.txt?' }, { id: 't2' }),
        ],
        { stopReason: 'toolUse' },
      ),
      route,
      route,
      route,
      route,
      (context) =>
        fauxAssistantMessage(
          `Summary: ${context.messages
            .filter((m) => m.role === 'toolResult')
            .map((m) => JSON.stringify(m.content))
            .join(' / ')}`,
        ),
    ]);
    const session = await f.open();
    await session.submit('Delegate reading a and b');
    await session.waitForIdle();
    assert.equal(maxConcurrent, 2, 'the two subagents ran at the same time');
    const state = f.store.get(session.id);
    const subagents = state.agents.filter((a) => a.parentId === 'main');
    assert.deepEqual(subagents.map((a) => a.title).sort(), ['Read a', 'Read b']);
    for (const agent of subagents) {
      const { records } = readWireLog(path.join(f.store.locate(session.id), 'agents', agent.id, 'wire.jsonl'));
      assert.equal(records[0]!.t, 'agent');
      assert.equal((records[0] as { parentAgentId: string }).parentAgentId, 'main');
      const roles = (records.filter((r) => r.t === 'message') as MessageRecord[]).map((m) => m.message.role);
      assert.deepEqual(roles, ['user', 'assistant', 'toolResult', 'assistant']);
      assert.ok((records.filter((r) => r.t === 'message') as MessageRecord[]).every((m) => m.turn === 1));
    }
    const main = f.records(session.id);
    const final = (main.filter((r) => r.t === 'message') as MessageRecord[]).at(-1)!;
    assert.match(JSON.stringify(final.message), /a.txt holds apples.*b.txt holds bananas|b.txt holds bananas.*a.txt holds apples/);
    const usage = main.filter((r) => r.t === 'usage') as Array<{ purpose?: string }>;
    assert.equal(usage.filter((u) => u.purpose?.startsWith('subagent:')).length, 4);
    assert.equal(fs.readdirSync(path.join(f.store.locate(session.id), 'agents')).length, 3);
  } finally {
    await f.cleanup();
  }
});

test("a subagent runs on the turn's model even when the model setting changes mid-turn", async () => {
  const server = new ScriptedModelServer();
  const baseUrl = await server.start();
  const f = await sessionFixture({ 'a.txt': 'apples' });
  try {
    const choose = (id: string) => ({ model: resolveModel({ provider: 'openai-compatible', model: id, baseUrl, demo: false }), thinking: 'off' });
    let setting = choose('model-a');
    server.enqueue(
      { kind: 'toolCalls', calls: [{ id: 't1', name: 'task', arguments: '{"description":"Look","prompt":"What is in a.txt?"}' }] },
      { kind: 'text', chunks: ['a.txt holds apples'] },
      { kind: 'text', chunks: ['The subagent says apples.'] },
      { kind: 'text', chunks: ['Next turn.'] },
    );
    const session = await f.open({ model: () => setting });
    // The user switches the model while the turn runs, before the subagent starts.
    session.onEvent((e) => {
      if (e.type === 'tool-start' && e.name === 'task') setting = choose('model-b');
    });
    await session.submit('Delegate a look at a.txt');
    await session.waitForIdle();
    assert.deepEqual(
      server.requests.map((r) => r.body.model),
      ['model-a', 'model-a', 'model-a'],
      "every request of the turn, the subagent's included",
    );
    const begin = f.records(session.id).find((r) => r.t === 'turn_begin') as { model: { id: string } };
    assert.equal(begin.model.id, 'model-a');
    const subagentUsage = f.records(session.id).filter((r) => r.t === 'usage' && (r as { purpose?: string }).purpose?.startsWith('subagent:')) as Array<{
      model: string;
    }>;
    assert.deepEqual(
      subagentUsage.map((u) => u.model),
      ['model-a'],
    );
    await session.submit('And now?');
    await session.waitForIdle();
    assert.equal(server.requests.at(-1)!.body.model, 'model-b', 'the switch applies from the next turn');
  } finally {
    await f.cleanup();
    await server.close();
  }
});

test("the turn's thinking level, snapshotted at its start, is what the main agent and its subagents ask for", async () => {
  const f = await sessionFixture();
  try {
    const asked: Array<string | undefined> = [];
    const answer = (message: ReturnType<typeof fauxAssistantMessage>) => (_context: unknown, options?: object) => (
      asked.push((options as { reasoning?: string } | undefined)?.reasoning),
      message
    );
    let thinking = 'low';
    f.faux.setResponses([
      answer(fauxAssistantMessage(fauxToolCall('task', { description: 'Think', prompt: 'think about it' }, { id: 't1' }), { stopReason: 'toolUse' })),
      answer(fauxAssistantMessage('thought')),
      answer(fauxAssistantMessage('done')),
    ]);
    const session = await f.open({ model: () => ({ model: f.faux.getModel(), thinking }) });
    session.onEvent((e) => {
      if (e.type === 'tool-start') thinking = 'high';
    });
    await session.submit('think with a subagent');
    await session.waitForIdle();
    assert.deepEqual(asked, ['low', 'low', 'low']);
  } finally {
    await f.cleanup();
  }
});

test("a subagent's model calls send the session's prompt-cache key, as the main agent's do", async () => {
  const server = new ScriptedModelServer();
  const baseUrl = await server.start();
  const f = await sessionFixture({ 'a.txt': 'apples' });
  try {
    // OpenAI's Responses API takes the key as `prompt_cache_key` in the body.
    const model = resolveModel({ provider: 'openai', model: 'gpt-4.1-mini', baseUrl, demo: false });
    assert.equal(model.api, 'openai-responses');
    server.enqueue(
      { kind: 'toolCalls', calls: [{ id: 't1', name: 'task', arguments: '{"description":"Look","prompt":"What is in a.txt?"}' }] },
      { kind: 'text', chunks: ['a.txt holds apples'] },
      { kind: 'text', chunks: ['The subagent says apples.'] },
    );
    const session = await f.open({ model: () => ({ model, thinking: 'off' }) });
    await session.submit('Delegate a look at a.txt');
    await session.waitForIdle();
    assert.equal(server.requests.length, 3);
    const subagentCall = server.requests.find((r) => JSON.stringify(r.body).includes('You are a subagent of Braid'));
    assert.ok(subagentCall, 'one request is the subagent’s');
    assert.deepEqual(
      server.requests.map((r) => r.body.prompt_cache_key),
      [session.id, session.id, session.id],
      'the main calls and the subagent call carry the key',
    );
  } finally {
    await f.cleanup();
    await server.close();
  }
});
