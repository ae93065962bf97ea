import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { silentLogger } from '../../../src/core/logger';
import { approvedShape, mcpServerEntries } from '../../../src/core/setup/mcp/definitions';
import { definitionHash } from '../../../src/core/setup/projectApprovals';
import { McpPromptMenu } from '../../../src/vscode/chat/mcpPromptMenu';
import { McpResourceMentions } from '../../../src/vscode/chat/mcpResourceMentions';
import { EVERYTHING, mcpFixture } from '../../support/mcp';

// The chat's `/` menu and `@` list of MCP prompts and resources, against the reference server.
const fixtures: Array<ReturnType<typeof mcpFixture>> = [];
const fixture = () => {
  const f = mcpFixture();
  fixtures.push(f);
  return f;
};
after(async () => {
  for (const f of fixtures) await f.cleanup();
});

const ARCHITECTURE = 'everything:demo://resource/static/document/architecture.md';

test("the / menu lists a user server's prompts only once asked, with their arguments; a prompt expands to the line typed and the server's text", async () => {
  const f = fixture();
  f.userServers({ everything: { command: EVERYTHING } });
  const hub = f.hub();
  const menu = new McpPromptMenu(() => hub, silentLogger);
  assert.deepEqual(menu.known(), []);
  assert.equal(hub.statuses()[0]!.state, 'not started', 'nothing starts before the menu is opened');
  const items = await menu.list();
  const args = items.find((i) => i.name === 'mcp__everything__args-prompt');
  assert.deepEqual(args && { hint: args.argumentHint, server: args.server, origin: args.origin }, {
    hint: 'city [state]',
    server: 'everything',
    origin: 'user',
  });
  assert.ok(items.some((i) => i.name === 'mcp__everything__simple-prompt' && i.argumentHint === undefined && i.description));
  assert.deepEqual(menu.known(), items);
  assert.equal(await menu.expand('/mcp__everything__args-prompt Paris'), "/mcp__everything__args-prompt Paris\n\nWhat's weather in Paris?");
  await assert.rejects(menu.expand('/mcp__everything__args-prompt'), /needs city/);
  await assert.rejects(menu.expand('/mcp__everything__nothing-here x'), /\/mcp__everything__nothing-here is not a prompt of a running MCP server/);
});

test("a project's server lists nothing and starts not while the workspace is untrusted or the server unapproved; approved, it lists", async () => {
  const f = fixture();
  f.projectServers({ proj: { command: EVERYTHING } });
  for (const trusted of [false, true]) {
    const hub = f.hub(trusted);
    assert.deepEqual(await new McpPromptMenu(() => hub, silentLogger).list(), []);
    assert.deepEqual(await new McpResourceMentions(() => hub, 10_000).find('', 5), []);
    assert.equal(hub.statuses()[0]!.state, trusted ? 'unapproved' : 'untrusted');
    await assert.rejects(new McpPromptMenu(() => hub, silentLogger).expand('/mcp__proj__simple-prompt'), /is not a prompt of a running MCP server/);
  }
  const sources = f.sources(true);
  const entry = mcpServerEntries(sources).find((e) => e.name === 'proj')!;
  await sources.approvals.approve({ workspace: f.workspace, item: 'mcp:proj' }, definitionHash(approvedShape(entry.definition!)));
  const items = await new McpPromptMenu(() => f.hub(true), silentLogger).list();
  assert.ok(items.some((i) => i.name === 'mcp__proj__simple-prompt' && i.origin === 'project'));
});

test('the @ list finds a resource by its name or server:uri, and its chip reads the resource', async () => {
  const f = fixture();
  f.userServers({ everything: { command: EVERYTHING } });
  const hub = f.hub();
  const resources = new McpResourceMentions(() => hub, 20_000);
  const found = await resources.find('architecture', 5);
  assert.equal(found[0]?.uri, ARCHITECTURE, JSON.stringify(found));
  assert.equal(found[0]!.kind, 'mcpResource');
  assert.equal(found[0]!.label, 'architecture.md');
  assert.match(found[0]!.detail, /^MCP everything · demo:\/\/resource\/static\/document\/architecture.md/);
  // Claude Code's written form finds it too.
  assert.equal((await resources.find(ARCHITECTURE, 5))[0]?.uri, ARCHITECTURE);
  assert.deepEqual(await resources.find('zzzzqqq', 5), []);
  assert.match(await resources.read(found[0]!), /Everything Server – Architecture/);
  await assert.rejects(resources.read({ kind: 'mcpResource', label: 'x', uri: 'nowhere:demo://x' }), /there is no MCP server named "nowhere"/);
});
