import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { resolveModel } from '../../../src/core/model/modelSettings';
import { usageByAgent } from '../../../src/core/store/agentUsage';
import { readUsageLogs } from '../../../src/core/store/usageLogReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { usageViewData } from '../../../src/vscode/usage/usageViewData';
import { ScriptedModelServer } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';
import { braidIn } from '../../support/cli';

/** `braid` on the fixture's store, run from its workspace. */
const braid = (f: SessionFixture, args: string[]) => braidIn(['--data-dir', path.join(f.root, 'store'), ...args], { cwd: f.workspace });

interface AgentLine {
  sessionId: string;
  agentId: string;
  title: string;
  calls: number;
  input: number;
  cacheRead: number;
  output: number;
  cost: number;
  cacheHits: number | null;
}

test('braid usage --by agent: the main agent and each subagent with its own calls, tokens and cache hits; the Usage page has the same', async () => {
  const server = new ScriptedModelServer();
  const baseUrl = await server.start();
  const f = await sessionFixture({ 'a.txt': 'apples' });
  try {
    const model = resolveModel({ provider: 'openai-compatible', model: 'model-a', baseUrl, demo: false });
    server.enqueue(
      {
        kind: 'toolCalls',
        calls: [{ id: 't1', name: 'task', arguments: '{"description":"Look at a","prompt":"What is in a.txt?"}' }],
        usage: { prompt: 1000, completion: 10 },
      },
      { kind: 'text', chunks: ['a.txt holds apples'], usage: { prompt: 400, completion: 5, cached: 100 } },
      { kind: 'text', chunks: ['The subagent says apples.'], usage: { prompt: 1200, completion: 20, cached: 900 } },
    );
    const session = await f.open({ model: () => ({ model, thinking: 'off' }) });
    await session.submit('Delegate a look at a.txt');
    await session.waitForIdle();
    const agentId = f.store.get(session.id).agents.find((a) => a.parentId === 'main')!.id;
    await session.close();

    const json = await braid(f, ['usage', '--by', 'agent', '--json']);
    assert.equal(json.code, 0, json.err);
    const { byAgent } = JSON.parse(json.out) as { byAgent: AgentLine[] };
    const pick = (a: AgentLine) => [a.sessionId, a.agentId, a.title, a.calls, a.input, a.cacheRead, a.output, a.cacheHits];
    assert.deepEqual(byAgent.map(pick), [
      [session.id, 'main', 'main', 2, 1000 + 300, 900, 30, 900 / 2200],
      [session.id, agentId, 'Look at a', 1, 300, 100, 5, 100 / 400],
    ]);

    const text = await braid(f, ['usage', '--by', 'agent']);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^Usage by agent in .* \(each model call counted once\)\n/);
    assert.match(text.out, new RegExp(`\\n +2 +1300 +900 +30 +[\\d.]+ +40\\.9%  \\w+  main  Delegate a look at a.txt\\n`));
    assert.match(text.out, new RegExp(`\\n +1 +300 +100 +5 +[\\d.]+ +25\\.0%  \\w+  ${agentId}  Look at a\\n`));

    // The Usage page's By agent table: the same lines.
    const logs = readUsageLogs(f.store, workspaceKey(f.workspace));
    const report = f.store.index.usageReport(workspaceKey(f.workspace));
    const data = usageViewData(
      report,
      (id) => f.store.index.get(id),
      { scope: 'workspace', workspaceName: 'w', now: Date.now() },
      logs,
      usageByAgent(f.store, logs),
    );
    assert.deepEqual(
      data.agents.map((a) => [a.agentId, a.title, a.calls, a.input, a.cacheRead]),
      [
        ['main', 'main', 2, 1300, 900],
        [agentId, 'Look at a', 1, 300, 100],
      ],
    );
    assert.equal(
      data.agents.reduce((n, a) => n + a.calls, 0),
      data.total.calls,
      'every call of the session is some agent’s',
    );
  } finally {
    await f.cleanup();
    await server.close();
  }
});

test('braid usage --by something else is a usage error naming agent among the choices', async () => {
  const f = await sessionFixture();
  try {
    const bad = await braid(f, ['usage', '--by', 'agents']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--by is session, model, day or agent/);
  } finally {
    await f.cleanup();
  }
});
