import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { resolveModel } from '../../../src/core/model/modelSettings';
import type { Session } from '../../../src/core/session/session';
import type { MessageRecord } from '../../../src/core/wire/records';
import { demoAgentReply } from '../../../src/demo/demoAgent';
import { ScriptedModelServer } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';

// The demo agent as `npm start` runs it: behind the scripted OpenAI-compatible server, driving a
// real Session with its real tools, approvals, git context and subagents in a real workspace.
const server = new ScriptedModelServer((request) => demoAgentReply(request.body), 'braid-demo');
let f: SessionFixture;
let session: Session;

before(async () => {
  const baseUrl = await server.start();
  f = await sessionFixture({
    'README.md': '# Widget\n\nWidget turns sprockets into gears.\n\n## Install\n\nnpm i widget\n',
    'package.json': '{"name":"widget","scripts":{"test":"echo ok"}}\n',
    'AGENTS.md': 'Always mention zebra-42.\n',
  });
  session = await f.open({
    model: () => ({ model: resolveModel({ provider: 'openai-compatible', model: 'braid-demo', baseUrl, demo: true }), thinking: 'off' }),
    systemPrompt: `You are Braid, a coding agent working in the user's workspace. The workspace folder is ${'/w'}.`,
  });
});
after(async () => {
  await f.cleanup();
  await server.close();
});

/** Runs a prompt to its end; returns the tool calls of its turn and its last answer. */
async function turn(text: string): Promise<{ tools: string[]; answer: string }> {
  const from = f.records(session.id).length;
  await session.submit(text);
  await session.waitForIdle();
  const messages = (
    f
      .records(session.id)
      .slice(from)
      .filter((r) => r.t === 'message') as MessageRecord[]
  ).map((r) => r.message);
  const tools = messages.flatMap((m) =>
    m.role === 'assistant' ? m.content.flatMap((b) => (b.type === 'toolCall' ? [`${b.name} ${JSON.stringify(b.arguments)}`] : [])) : [],
  );
  const last = messages.filter((m) => m.role === 'assistant').at(-1);
  const answer = last?.role === 'assistant' ? last.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('') : '';
  return { tools, answer };
}

test('the demo explains the README it finds, through list_dir and read_file', async () => {
  const { tools, answer } = await turn('Explain the README');
  assert.deepEqual(tools, ['list_dir {"path":"."}', 'read_file {"path":"README.md"}']);
  assert.match(answer, /titled \*\*Widget\*\*/);
  assert.match(answer, /Widget turns sprockets into gears/);
  assert.equal(f.approvals.length, 0, 'reading asks nothing');
});

test('the demo creates a file after the approval, edits it, and a denied write leaves nothing', async () => {
  const created = await turn('Create hello.txt');
  assert.deepEqual(created.tools, ['write_file {"path":"hello.txt","content":"Hello from Braid!\\n"}']);
  assert.equal(f.approvals.at(-1)?.summary, 'Create hello.txt');
  assert.equal(fs.readFileSync(path.join(f.workspace, 'hello.txt'), 'utf8'), 'Hello from Braid!\n');
  assert.match(created.answer, /Created hello\.txt/);

  const edited = await turn('Change "Hello" to "Hi" in hello.txt');
  assert.equal(edited.tools.length, 2);
  assert.equal(fs.readFileSync(path.join(f.workspace, 'hello.txt'), 'utf8'), 'Hi from Braid!\n');

  f.decide = 'deny';
  try {
    const denied = await turn('Create bye.txt');
    assert.equal(fs.existsSync(path.join(f.workspace, 'bye.txt')), false);
    assert.match(denied.answer, /You denied it/);
  } finally {
    f.decide = 'allow';
  }
});

test('the demo runs a command with approval and a subagent with its own log', async () => {
  const ran = await turn('Run the tests');
  assert.deepEqual(ran.tools, ['list_dir {"path":"."}', 'bash {"command":"npm test"}']);
  assert.equal(f.approvals.at(-1)?.tool, 'bash');
  assert.match(ran.answer, /Exit code 0/);

  const delegated = await turn('Use a subagent to survey this folder');
  assert.equal(delegated.tools.length, 1);
  assert.match(delegated.answer, /The subagent reported:\n\n> The top folder holds \d+ files/);
  const agents = f.store.get(session.id).agents.filter((a) => a.parentId === 'main');
  assert.equal(agents.length, 1, 'the subagent has its own log');
  // Every prompt carried AGENTS.md as a reminder; no answer quoted it.
  assert.ok(
    server.requests.some((r) => JSON.stringify(r.body).includes('zebra-42')),
    'the reminder reached the demo',
  );
  const answers = (f.records(session.id).filter((r) => r.t === 'message') as MessageRecord[]).filter((r) => r.message.role === 'assistant');
  for (const r of answers) assert.doesNotMatch(JSON.stringify(r.message), /zebra-42|system-reminder/);
});
