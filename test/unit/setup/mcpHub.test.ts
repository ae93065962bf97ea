import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { definitionHash } from '../../../src/core/setup/projectApprovals';
import { approvedShape, mcpServerEntries } from '../../../src/core/setup/mcp/definitions';
import { listMcpPrompts, listMcpResources, readMcpResource, resolveMcpPrompt } from '../../../src/core/setup/mcp/promptsAndResources';
import { EVERYTHING, FILESYSTEM, mcpFixture, testServer } from '../../support/mcp';

// The hub against real servers: the reference servers of the MCP project and Braid's test server.
const fixtures: Array<ReturnType<typeof mcpFixture>> = [];
const fixture = (env: NodeJS.ProcessEnv = {}) => {
  const f = mcpFixture(env);
  fixtures.push(f);
  return f;
};
after(async () => {
  for (const f of fixtures) await f.cleanup();
});

test('a user server from the settings file starts and lists its tools, sorted and named mcp__<server>__<tool>', async () => {
  const f = fixture();
  f.userServers({ everything: { command: EVERYTHING } });
  const hub = f.hub();
  assert.equal(hub.statuses()[0]!.state, 'not started');
  const started = Date.now();
  await hub.startAll();
  const [status] = hub.statuses();
  assert.equal(status!.state, 'running', status!.error);
  const names = status!.tools.map((t) => t.agentName);
  assert.ok(names.includes('mcp__everything__echo'), names.join(', '));
  assert.ok(names.includes('mcp__everything__get-sum'));
  assert.deepEqual(names, [...names].sort());
  const echo = await hub.request('everything', 'tools/call', { name: 'echo', arguments: { message: 'hello there' } });
  assert.match(JSON.stringify(echo.content), /hello there/);
  // Generous: it guards against a hang, not a speed target (bench/ measures that).
  assert.ok(Date.now() - started < 20_000);
});

test('the filesystem server reads a file of the folder it is given', async () => {
  const f = fixture();
  f.userServers({ files: { command: FILESYSTEM, args: [f.workspace] } });
  fs.writeFileSync(`${f.workspace}/notes.txt`, 'remember the milk\n');
  const hub = f.hub();
  await hub.startAll();
  assert.equal(hub.statuses()[0]!.state, 'running', hub.statuses()[0]!.error);
  const read = await hub.request('files', 'tools/call', { name: 'read_text_file', arguments: { path: `${f.workspace}/notes.txt` } });
  assert.match(JSON.stringify(read.content), /remember the milk/);
});

test('an untrusted workspace starts no project server; the user servers still start', async () => {
  const f = fixture();
  f.userServers({ mine: testServer() });
  f.projectServers({ theirs: testServer() });
  const hub = f.hub(false);
  await hub.startAll();
  const byName = Object.fromEntries(hub.statuses().map((s) => [s.name, s]));
  assert.equal(byName.mine!.state, 'running');
  assert.equal(byName.theirs!.state, 'untrusted');
  await assert.rejects(hub.request('theirs', 'tools/list', undefined), /not trusted/);
});

test('a project server starts only after its exact definition is approved; a changed definition is unapproved again', async () => {
  const f = fixture();
  f.projectServers({ proj: { ...testServer(), env: { TOKEN: 'one' } } });
  let hub = f.hub();
  await hub.startAll();
  assert.equal(hub.statuses()[0]!.state, 'unapproved');
  assert.equal(hub.statuses()[0]!.approved, false);
  // Approved as `braid mcp trust` approves it.
  const sources = f.sources();
  const [entry] = mcpServerEntries(sources);
  await sources.approvals.approve({ workspace: f.workspace, item: 'mcp:proj' }, definitionHash(approvedShape(entry!.definition!)));
  hub = f.hub();
  await hub.startAll();
  assert.equal(hub.statuses()[0]!.state, 'running', hub.statuses()[0]!.error);
  // A changed value of a named variable is the same definition; a new argument is not.
  f.projectServers({ proj: { ...testServer(), env: { TOKEN: 'two' } } });
  assert.equal(f.hub().statuses()[0]!.approved, true);
  f.projectServers({ proj: { ...testServer('--verbose'), env: { TOKEN: 'two' } } });
  hub = f.hub();
  await hub.startAll();
  assert.equal(hub.statuses()[0]!.state, 'unapproved');
});

test('a user definition of the same name wins over the project one', async () => {
  const f = fixture();
  f.userServers({ shared: testServer() });
  f.projectServers({ shared: { command: 'definitely-not-run' } });
  const [entry] = mcpServerEntries(f.sources());
  assert.equal(entry!.origin, 'user');
  assert.equal(entry!.definition!.command, process.execPath);
});

test('a server sees only its base environment and the variables its definition names, never model keys', async () => {
  const f = fixture({ BRAID_API_KEY: 'braid-secret', OPENAI_API_KEY: 'openai-secret', SOME_TOKEN: 'tok-123', UNRELATED: 'nope' });
  f.userServers({ envy: { ...testServer(), env: { GIVEN: '${SOME_TOKEN}', DEFAULTED: '${MISSING_VAR:-fallback}' } } });
  const hub = f.hub();
  const answer = await hub.request('envy', 'tools/call', { name: 'show-env', arguments: {} });
  const env = JSON.parse((answer.content as Array<{ text: string }>)[0]!.text) as Record<string, string>;
  assert.equal(env.GIVEN, 'tok-123');
  assert.equal(env.DEFAULTED, 'fallback');
  for (const hidden of ['BRAID_API_KEY', 'OPENAI_API_KEY', 'UNRELATED', 'SOME_TOKEN', 'XDG_CONFIG_HOME']) assert.equal(env[hidden], undefined, hidden);
  assert.ok(env.PATH);
});

test('a project server may not read a model key through ${VAR}; an unset variable says which', async () => {
  const f = fixture({ OPENAI_API_KEY: 'openai-secret' });
  // Braid holds the key in its own environment (where the key lookup finds it).
  const before = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = 'openai-secret';
  after(() => (before === undefined ? delete process.env.OPENAI_API_KEY : (process.env.OPENAI_API_KEY = before)));
  f.projectServers({ sneaky: { ...testServer(), env: { K: '${OPENAI_API_KEY}' } }, unset: { ...testServer(), args: ['${NOT_SET_ANYWHERE}'] } });
  const sources = f.sources();
  for (const entry of mcpServerEntries(sources))
    await sources.approvals.approve({ workspace: f.workspace, item: `mcp:${entry.name}` }, definitionHash(approvedShape(entry.definition!)));
  const hub = f.hub();
  await hub.startAll();
  const byName = Object.fromEntries(hub.statuses().map((s) => [s.name, s]));
  assert.equal(byName.sneaky!.state, 'failed');
  assert.match(byName.sneaky!.error!, /model key variable OPENAI_API_KEY/);
  assert.match(byName.unset!.error!, /NOT_SET_ANYWHERE is not set/);
});

test('a server that exits at start fails with its own error output; the others still run', async () => {
  const f = fixture();
  f.userServers({ broken: testServer('exit-at-start'), fine: testServer(), missing: { command: 'no-such-program-braid-test' } });
  const hub = f.hub();
  await hub.startAll();
  const byName = Object.fromEntries(hub.statuses().map((s) => [s.name, s]));
  assert.equal(byName.broken!.state, 'failed');
  assert.match(byName.broken!.error!, /configuration is missing/);
  assert.equal(byName.missing!.state, 'failed');
  assert.match(byName.missing!.error!, /ENOENT|not found/);
  assert.equal(byName.fine!.state, 'running');
});

test('a tool with an invalid input schema is left out with a note; the server runs with the rest', async () => {
  const f = fixture();
  f.userServers({ t: testServer() });
  const hub = f.hub();
  await hub.startAll();
  const [status] = hub.statuses();
  assert.equal(status!.state, 'running');
  assert.ok(!status!.tools.some((t) => t.name === 'bad-schema'));
  assert.ok(status!.tools.some((t) => t.name === 'good'));
  assert.match(status!.toolErrors.join('\n'), /bad-schema.*type "string", not "object"/);
});

test('a broken definition is reported as invalid, not started', () => {
  const f = fixture();
  f.userServers({ nothing: { args: ['x'] }, odd: { type: 'websocket', url: 'ws://x' } });
  const byName = Object.fromEntries(
    f
      .hub()
      .statuses()
      .map((s) => [s.name, s]),
  );
  assert.equal(byName.nothing!.state, 'invalid');
  assert.match(byName.nothing!.error!, /needs a "command"/);
  assert.match(byName.odd!.error!, /unknown "type"/);
});

test("a server's prompts (as slash commands) and resources (for @ attachments) are listed and read", async () => {
  const f = fixture();
  f.userServers({ everything: { command: EVERYTHING } });
  const hub = f.hub();
  const prompts = await listMcpPrompts(hub);
  const args = prompts.find((p) => p.command === 'mcp__everything__args-prompt');
  assert.deepEqual(
    args?.arguments.map((a) => [a.name, a.required]),
    [
      ['city', true],
      ['state', false],
    ],
  );
  // Words fill the arguments in order; the last argument takes the rest of the line.
  assert.equal(await resolveMcpPrompt(hub, '/mcp__everything__args-prompt Paris'), "What's weather in Paris?");
  assert.equal(await resolveMcpPrompt(hub, '/mcp__everything__args-prompt Springfield North Dakota'), "What's weather in Springfield, North Dakota?");
  assert.equal(await resolveMcpPrompt(hub, '/mcp__everything__no-such-prompt x'), undefined);
  assert.equal(await resolveMcpPrompt(hub, 'not a command'), undefined);
  const resources = await listMcpResources(hub);
  const text = resources.find((r) => r.mimeType?.startsWith('text/'));
  assert.ok(text, JSON.stringify(resources.slice(0, 3)));
  assert.ok((await readMcpResource(hub, text.server, text.uri)).length > 0);
});
