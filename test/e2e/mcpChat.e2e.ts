import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// A user's own MCP server (the reference "everything" server in `braid.mcpServers`) in the chat:
// its prompts are in the `/` menu once the menu is opened, one sent reaches the model as the
// server's text (one missing its argument sends nothing and says why), and its resources are in
// the `@` list, where a chosen one's content reaches the model with the prompt.
const model = new ScriptedModelServer();
const everything = path.join(process.cwd(), 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'mcp-chat',
    settings: { ...model.vscodeSettings(), 'braid.mcpServers': { everything: { command: process.execPath, args: [everything] } } },
    files: { 'README.md': '# A project\n' },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const chat = () => workbench.chatFrame();
const input = () => chat().locator('[data-role="input"]');
const lastMessages = () => JSON.stringify(model.requests.at(-1)?.body.messages ?? []);

test("the / menu lists the server's prompts with their arguments; one sent reaches the model as the server's text", async () => {
  await input().fill('/mcp');
  const option = chat().locator('#slash-mcp__everything__args-prompt');
  await option.waitFor({ timeout: 30_000 });
  assert.match((await option.textContent()) ?? '', /city \[state\].*\(MCP server everything\)/);
  await workbench.screenshot('slash-menu-mcp-prompts');

  // Missing its required argument: nothing reaches the model, the chat says why.
  const before = model.requests.length;
  await input().fill('/mcp__everything__args-prompt');
  await input().press('Enter');
  await chat()
    .getByText(/needs city/)
    .first()
    .waitFor({ timeout: 20_000 });
  await workbench.screenshot('mcp-prompt-missing-argument');
  assert.equal(model.requests.length, before);

  model.enqueue({ kind: 'text', chunks: ['Sunny in Paris.'] });
  await input().fill('/mcp__everything__args-prompt Paris');
  await input().press('Enter');
  await chat().locator('.message.assistant', { hasText: 'Sunny in Paris.' }).waitFor({ timeout: 30_000 });
  assert.match(lastMessages(), /\/mcp__everything__args-prompt Paris\\n\\nWhat's weather in Paris\?/);
  await workbench.screenshot('mcp-prompt-sent');
});

test("the @ list offers the server's resources; the one chosen reaches the model with the prompt", async () => {
  await input().fill('@architecture');
  const item = chat().locator('.completion.mention', { hasText: 'demo://resource/static/document/architecture.md' }).first();
  await item.waitFor({ timeout: 30_000 });
  await workbench.screenshot('at-list-mcp-resource');
  await item.dispatchEvent('mousedown');
  await chat().locator('[data-role="chips"] [data-kind="mcpResource"]').waitFor({ timeout: 10_000 });
  model.enqueue({ kind: 'text', chunks: ['It is about the architecture.'] });
  await input().fill('What is this document about?');
  await input().press('Enter');
  await chat().locator('.message.assistant', { hasText: 'It is about the architecture.' }).waitFor({ timeout: 30_000 });
  const sent = lastMessages();
  assert.match(sent, /uri=\\"everything:demo:\/\/resource\/static\/document\/architecture.md\\"/);
  assert.match(sent, /Everything Server – Architecture/);
  await workbench.screenshot('mcp-resource-sent');
});
