import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readWireLog } from '../../../src/core/wire/wireReader';
import type { MessageRecord } from '../../../src/core/wire/records';
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
      fauxAssistantMessage([
        fauxToolCall('task', { description: 'Read a', prompt: 'What is in a.txt?' }, { id: 't1' }),
        fauxToolCall('task', { description: 'Read b', prompt: 'What is in b.txt?' }, { id: 't2' }),
      ], { stopReason: 'toolUse' }),
      route, route, route, route,
      (context) => fauxAssistantMessage(`Summary: ${context.messages.filter((m) => m.role === 'toolResult').map((m) => JSON.stringify(m.content)).join(' / ')}`),
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
