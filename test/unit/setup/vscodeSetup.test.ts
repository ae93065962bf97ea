import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { ToolContext } from '../../../src/core/tools/context';
import { ApprovalGate, type ApprovalRequest } from '../../../src/core/tools/approvals';
import type { MessageRecord, WireRecord } from '../../../src/core/wire/records';
import { chosenToolNames, lmAgentToolName, lmAgentTools, type LmToolInfo } from '../../../src/vscode/lm/lmToolAdapter';
import { vscodeSetupSettings } from '../../../src/vscode/setup/setupSettings';
import { ScriptedModelServer, type RecordedRequest } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';

// The VS Code side of the setup without VS Code: the user's setting values as a settings source,
// and the tools VS Code offers as tools of Braid's model (the mapping, and a session calling one
// over real HTTP). The call into VS Code itself is the e2e's.

test("VS Code's values become one settings source; userPromptSubmit stays the older setting's, not a hook event", () => {
  const hooks = { PreToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command: 'check' }] }] };
  assert.deepEqual(
    vscodeSetupSettings({ mcpServers: { a: { command: 'x' } }, hooks: { ...hooks, userPromptSubmit: 'echo hi' }, permissions: { deny: ['Bash(rm:*)'] } }),
    { mcpServers: { a: { command: 'x' } }, hooks, permissions: { deny: ['Bash(rm:*)'] } },
  );
  assert.deepEqual(vscodeSetupSettings({ mcpServers: {}, hooks: { userPromptSubmit: '' }, permissions: {} }), {}, 'the defaults say nothing');
  assert.deepEqual(
    vscodeSetupSettings({ mcpServers: undefined, hooks: 'not hooks', permissions: ['wrong'] }),
    { hooks: 'not hooks', permissions: ['wrong'] },
    'a wrong type is kept for the readers to report',
  );
});

test('braid.vscodeTools: strings only, each once', () => {
  assert.deepEqual(chosenToolNames(['a', 'b', 'a', 3, '', null]), ['a', 'b']);
  assert.deepEqual(chosenToolNames('a'), []);
});

const offered: LmToolInfo[] = [
  { name: 'zeta.search', description: 'Searches', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
  { name: 'alpha tool', description: '', inputSchema: undefined },
  { name: 'alpha/tool', description: 'Collides with "alpha tool" once sanitized', inputSchema: undefined },
  { name: 'not-chosen', description: 'Never offered', inputSchema: undefined },
];

function context(trusted: boolean, asked: ApprovalRequest[], decision: 'allow' | 'deny' = 'allow'): ToolContext {
  // Only trust and the gate are what a VS Code tool uses of its session.
  return { trusted, approvals: new ApprovalGate({ request: async (r) => (asked.push(r), decision) }) } as unknown as ToolContext;
}

test('only the chosen tools VS Code offers become tools: prefixed, sanitized, sorted, with their schema', () => {
  const tools = lmAgentTools(offered, ['zeta.search', 'alpha tool', 'alpha/tool', 'gone.tool'], async () => [], context(true, []));
  assert.deepEqual(
    tools.map((t) => t.name),
    ['vscode__alpha_tool', 'vscode__zeta_search'],
  );
  assert.equal(tools[0]!.label, 'alpha tool', 'of two names that collide, the first by its own name is kept');
  assert.equal(tools[0]!.description, 'The VS Code tool alpha tool.');
  assert.deepEqual(tools[0]!.parameters, { type: 'object', properties: {} });
  assert.deepEqual(tools[1]!.parameters, offered[0]!.inputSchema);
  assert.equal(lmAgentToolName('x'.repeat(100)).length, 64);
});

test('a call asks first, passes the input and the signal, and returns the text bounded; a denied or untrusted call never reaches VS Code', async () => {
  const calls: { name: string; input: object; signal: AbortSignal | undefined }[] = [];
  const call = async (name: string, input: object, signal?: AbortSignal) => (calls.push({ name, input, signal }), ['first part', 'y'.repeat(50_000)]);
  const asked: ApprovalRequest[] = [];
  const [tool] = lmAgentTools(offered, ['zeta.search'], call, context(true, asked));
  const signal = new AbortController().signal;
  const result = await tool!.execute('id', { q: 'needle' }, signal);
  assert.deepEqual(calls, [{ name: 'zeta.search', input: { q: 'needle' }, signal }]);
  assert.deepEqual(
    asked.map((r) => [r.tool, r.toolName, r.args]),
    [['external', 'vscode__zeta_search', '{"q":"needle"}']],
  );
  const text = (result.content[0] as { text: string }).text;
  assert.ok(text.startsWith('first part\n') && text.length < 31_000 && /characters cut/.test(text), 'the result is bounded');

  const [denied] = lmAgentTools(offered, ['zeta.search'], call, context(true, [], 'deny'));
  await assert.rejects(denied!.execute('id', { q: 'x' }), /The user denied this tool call: zeta\.search/);
  const [untrusted] = lmAgentTools(offered, ['zeta.search'], call, context(false, []));
  await assert.rejects(untrusted!.execute('id', { q: 'x' }), /not trusted/);
  assert.equal(calls.length, 1, 'neither reached VS Code');
});

test('"Allow for this session" allows that one tool only', async () => {
  const asked: ApprovalRequest[] = [];
  const gate = new ApprovalGate({ request: async (r) => (asked.push(r), 'allow-session') });
  const ctx = { trusted: true, approvals: gate } as unknown as ToolContext;
  const [a, z] = lmAgentTools(offered, ['alpha tool', 'zeta.search'], async () => ['ok'], ctx);
  await a!.execute('1', {});
  await a!.execute('2', {});
  await z!.execute('3', { q: 'q' });
  assert.deepEqual(
    asked.map((r) => r.toolName),
    ['vscode__alpha_tool', 'vscode__zeta_search'],
  );
});

// A session offered VS Code tools through SessionOptions.extraTools, its model over real HTTP.
const server = new ScriptedModelServer();
let f: SessionFixture;
before(() => server.start());
beforeEach(async () => {
  await f?.cleanup();
  f = await sessionFixture();
});
after(async () => {
  await f?.cleanup();
  await server.close();
});
const toolNames = (r: RecordedRequest) => ((r.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const toolResults = (records: WireRecord[]) =>
  records.flatMap((r) => {
    const message = r.t === 'message' ? (r as MessageRecord).message : undefined;
    return message?.role === 'toolResult' ? [message] : [];
  });

test('the tools chosen join at the next turn, sorted by name; the model calls one and gets its text', async () => {
  let chosen: string[] = [];
  const calls: object[] = [];
  const session = await f.open({
    model: () => server.modelChoice(),
    extraTools: (ctx) => lmAgentTools(offered, chosen, async (_name, input) => (calls.push(input), [`found for ${JSON.stringify(input)}`]), ctx),
  });
  server.enqueue({ kind: 'text', chunks: ['No tools yet.'] });
  await session.submit('first');
  await session.waitForIdle();
  assert.ok(!toolNames(server.requests[0]!).some((n) => n.startsWith('vscode__')), 'nothing is offered unasked');

  chosen = ['zeta.search'];
  server.requests.length = 0;
  server.enqueue({ kind: 'toolCalls', calls: [{ id: 'c1', name: 'vscode__zeta_search', arguments: '{"q":"needle"}' }] }, { kind: 'text', chunks: ['Done.'] });
  await session.submit('second');
  await session.waitForIdle();
  const names = toolNames(server.requests[0]!);
  assert.deepEqual(names, [...names].sort(), 'sorted by name');
  assert.ok(names.includes('vscode__zeta_search'));
  assert.deepEqual(calls, [{ q: 'needle' }]);
  assert.deepEqual(
    f.approvals.map((r) => r.tool),
    ['external'],
  );
  const result = toolResults(f.records(session.id)).at(-1)!;
  assert.equal(result.isError, false);
  assert.match(JSON.stringify(result.content), /found for \{\\"q\\":\\"needle\\"\}/);
});
