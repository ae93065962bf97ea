import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../../../src/cli/run';
import { ScriptedModelServer } from '../../support/modelServer';
import { EVERYTHING, mcpFixture, testServer } from '../../support/mcp';
import { wasmPath } from '../../support/store';

// `braid mcp list`, `braid mcp trust` and `braid exec` with MCP servers, against the scripted model server.
const server = new ScriptedModelServer();
const m = mcpFixture();
let env: NodeJS.ProcessEnv = {};
before(async () => {
  env = { ...m.env, BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start() };
});
after(async () => {
  await server.close();
  await m.cleanup();
});

async function braid(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', path.join(m.root, 'store'), '--workspace', m.workspace, ...args], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env,
    wasmPath,
  });
  return { code, out, err };
}

interface Listed {
  name: string;
  origin: string;
  state: string;
  approved?: boolean;
  error?: string;
  tools: Array<{ name: string }>;
}

test('mcp list --json: a Claude Code .mcp.json unchanged, a user server, each with its origin, approval, state and tools', async () => {
  m.userServers({ everything: { command: EVERYTHING } });
  // Claude Code's own shape, as a project commits it.
  m.projectServers({ helper: { command: process.execPath, args: testServer().args as string[], env: { HELPER_MODE: 'quiet' } } });
  const r = await braid(['mcp', 'list', '--json']);
  assert.equal(r.code, 0, r.err);
  const listed = JSON.parse(r.out) as Listed[];
  const byName = Object.fromEntries(listed.map((s) => [s.name, s]));
  assert.equal(byName.everything!.origin, 'user');
  assert.equal(byName.everything!.state, 'running');
  assert.ok(byName.everything!.tools.some((t) => t.name === 'mcp__everything__echo'));
  assert.equal(byName.helper!.origin, 'project');
  assert.equal(byName.helper!.state, 'unapproved');
  assert.equal(byName.helper!.approved, false);
  const text = await braid(['mcp', 'list']);
  assert.match(text.out, /helper {2}project {2}\.mcp\.json {2}unapproved \(approve with: braid mcp trust helper\)/);
});

test('mcp trust approves the current definition and says what was approved; the server then runs', async () => {
  const r = await braid(['mcp', 'trust', 'helper']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /approved helper \(\.mcp\.json\)/);
  assert.match(r.out, new RegExp(`command: ${process.execPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(r.out, /env names: HELPER_MODE/);
  const listed = JSON.parse((await braid(['mcp', 'list', '--json'])).out) as Listed[];
  const helper = listed.find((s) => s.name === 'helper')!;
  assert.equal(helper.state, 'running', helper.error);
  assert.equal(helper.approved, true);
  assert.ok(helper.tools.some((t) => t.name === 'mcp__helper__good'));
  // Nothing to approve for a user server, nor for a name nobody defined.
  assert.match((await braid(['mcp', 'trust', 'everything'])).err, /your own server/);
  assert.equal((await braid(['mcp', 'trust', 'nobody'])).code, 1);
});

test('exec: the model calls an MCP tool with --yes; without it the call is denied and exec says so', async () => {
  server.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'call_1', name: 'mcp__everything__echo', arguments: '{"message":"over the wire"}' }] },
    { kind: 'text', chunks: ['Echoed.'] },
  );
  const r = await braid(['exec', '--yes', 'echo please']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /\[mcp__everything__echo\] \{"message":"over the wire"\}/);
  const sent = server.requests.at(-1)!.body;
  assert.match(JSON.stringify(sent.messages), /over the wire/);
  const offered = (sent.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
  assert.ok(offered.includes('mcp__everything__echo') && offered.includes('mcp__helper__good'));
  assert.deepEqual(offered, [...offered].sort());

  server.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'call_2', name: 'mcp__everything__echo', arguments: '{"message":"no"}' }] },
    { kind: 'text', chunks: ['Denied.'] },
  );
  const denied = await braid(['exec', 'echo without asking']);
  assert.equal(denied.code, 0, denied.err);
  assert.match(denied.err, /MCP call was denied; run with --yes/);
  assert.match(JSON.stringify(server.requests.at(-1)!.body.messages), /denied this MCP tool call: everything: echo/);
});

test('exec "/mcp__everything__args-prompt Paris" sends the server\'s prompt', async () => {
  server.enqueue({ kind: 'text', chunks: ['Sunny.'] });
  const r = await braid(['exec', '/mcp__everything__args-prompt Paris']);
  assert.equal(r.code, 0, r.err);
  const sent = JSON.stringify(server.requests.at(-1)!.body.messages);
  // What the user typed comes first, as a custom command's expansion shows it.
  assert.match(sent, /\/mcp__everything__args-prompt Paris\\n\\nWhat's weather in Paris\?/);
  const missing = await braid(['exec', '/mcp__everything__args-prompt']);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /needs city/);
});

test('exec "@everything:<uri>" attaches the resource; an unknown resource fails before any turn; @<not a server>:… is text', async () => {
  m.userServers({ everything: { command: EVERYTHING } });
  const uri = 'demo://resource/static/document/architecture.md';
  server.enqueue({ kind: 'text', chunks: ['Read it.'] });
  const before = server.requests.length;
  const r = await braid(['exec', `Summarize @everything:${uri} please`]);
  assert.equal(r.code, 0, r.err);
  const sent = JSON.stringify(server.requests.at(-1)!.body.messages);
  assert.match(sent, /<attachment kind=\\"mcpResource\\" label=\\"demo:\/\/resource\/static\/document\/architecture.md\\" uri=\\"everything:demo:/);
  assert.match(sent, /Everything Server – Architecture/);
  assert.equal(server.requests.length, before + 1);

  const noResource = await braid(['exec', 'Summarize @everything:demo://resource/static/document/no-such.md']);
  assert.equal(noResource.code, 1);
  assert.match(noResource.err, /@everything:demo:\/\/resource\/static\/document\/no-such.md could not be attached: /);
  assert.equal(server.requests.length, before + 1, 'no turn began');

  // A word no server is named by is the user's text (a mail address, a note to someone).
  server.enqueue({ kind: 'text', chunks: ['Sent.'] });
  const notAServer = await braid(['exec', 'Forward this to @ana:mailto:ana@example.org']);
  assert.equal(notAServer.code, 0, notAServer.err);
  const last = JSON.stringify(server.requests.at(-1)!.body.messages);
  assert.match(last, /Forward this to @ana:mailto:ana@example.org/);
  assert.doesNotMatch(last, /mcpResource/);
});
