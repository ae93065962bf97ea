import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { braidIn } from '../support/cli';
import { ScriptedModelServer, type RecordedRequest } from '../support/modelServer';
import { tempDir } from '../support/store';
import { Workbench } from '../support/workbench';

// A cloned repository that brings a setup of its own, in Claude Code's files: an MCP server
// (.mcp.json, the reference filesystem server), hooks for four events and a rule allowing every
// command (.claude/settings.json), and a skill with a script (.claude/skills/). Every program it
// names leaves a marker when it runs.
// Untrusted: none of it runs or takes effect. Trusted: the skill is offered, but the server and the
// hooks still wait for the user's approval of their exact definitions, and the project's allow
// rule allows nothing. The server approved alone with Braid: Approve Project Setup… (offered by the
// window's notice): its tool answers a turn and Show Setup lists it running with its tools. Then
// approved with `braid mcp trust` and `braid hooks trust` (the same approvals the window reads):
// the hooks run too, the rule applies.
const model = new ScriptedModelServer();
const root = tempDir('braid-project-setup-');
const markers = path.join(root, 'markers');
const serverScript = path.join(process.cwd(), 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const events = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'Stop'] as const;
let workbench: Workbench;

const marker = (name: string) => path.join(markers, name);
const ran = () => (fs.existsSync(markers) ? fs.readdirSync(markers).sort() : []);
const toolNames = (request: RecordedRequest) => ((request.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const systemText = (request: RecordedRequest) => JSON.stringify(request.body.messages?.[0] ?? '');

function projectFiles(workspace: string): Record<string, string> {
  const touch = (name: string) => `touch '${marker(name)}'`;
  return {
    'README.md': '# A cloned project with a setup of its own\n',
    '.mcp.json': JSON.stringify({
      mcpServers: { files: { command: 'sh', args: ['-c', `${touch('mcp-files')}; exec '${process.execPath}' '${serverScript}' '${workspace}'`] } },
    }),
    '.claude/settings.json': JSON.stringify({
      hooks: Object.fromEntries(events.map((e) => [e, [{ matcher: '', hooks: [{ type: 'command', command: touch(`hook-${e}`) }] }]])),
      permissions: { allow: ['Bash', 'mcp__files'] },
    }),
    '.claude/skills/release/SKILL.md': '---\nname: release\ndescription: Cut a release of this project\n---\nRun scripts/release.sh.\n',
    '.claude/skills/release/scripts/release.sh': `${touch('skill-script')}\n`,
  };
}

before(async () => {
  fs.mkdirSync(markers, { recursive: true });
  const url = await model.start();
  workbench = await Workbench.launch({
    name: 'project-setup',
    untrusted: true,
    settings: { 'braid.provider': 'openai-compatible', 'braid.model': 'scripted-model', 'braid.baseUrl': url, 'git.enabled': false },
  });
  // The files name the workspace's own path, known once the workbench made it.
  for (const [name, text] of Object.entries(projectFiles(workbench.workspace))) {
    fs.mkdirSync(path.dirname(path.join(workbench.workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workbench.workspace, name), text);
  }
});

after(async () => {
  await workbench?.close();
  await model.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function send(text: string): Promise<void> {
  const chat = workbench.chatFrame();
  await chat.locator('[data-role="input"]').fill(text);
  await chat.locator('[data-role="input"]').press('Enter');
}

/** In a new session, the model lists the workspace through the project's files server, then says `answer`; returns the index of the turn's first model request. */
async function listThroughFilesServer(callId: string, answer: string): Promise<number> {
  await workbench.newSession();
  const before = model.requests.length;
  model.enqueue(
    { kind: 'toolCalls', calls: [{ id: callId, name: 'mcp__files__list_directory', arguments: JSON.stringify({ path: workbench.workspace }) }] },
    { kind: 'text', chunks: [answer] },
  );
  await send('List the project through the files server');
  return before;
}

test("untrusted: the project's server, hooks and skill script do not run, and its skill and tools are not offered", async () => {
  await workbench.openBraid();
  const chat = workbench.chatFrame();
  await chat.locator('body[data-handshake="complete"][data-trusted="false"]').waitFor({ timeout: 30_000 });
  model.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'b1', name: 'bash', arguments: JSON.stringify({ command: 'sh .claude/skills/release/scripts/release.sh' }) }] },
    { kind: 'text', chunks: ['Nothing ran.'] },
  );
  await send('Cut a release');
  await chat.locator('.message.assistant', { hasText: 'Nothing ran.' }).waitFor({ timeout: 20_000 });
  await workbench.screenshot('untrusted');
  assert.deepEqual(ran(), []);
  const first = model.requests[0]!;
  assert.deepEqual(
    toolNames(first).filter((n) => n.startsWith('mcp__')),
    [],
  );
  assert.doesNotMatch(systemText(first), /Cut a release of this project/);
});

test('trusted but not approved: the skill is offered; the server and hooks do not run; the project cannot allow a command', async () => {
  await workbench.trustWorkspace();
  const chat = workbench.chatFrame();
  await workbench.newSession();
  const before = model.requests.length;
  model.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'b2', name: 'bash', arguments: JSON.stringify({ command: 'sh .claude/skills/release/scripts/release.sh' }) }] },
    { kind: 'text', chunks: ['You said no.'] },
  );
  await send('Cut a release now');
  const approval = chat.locator('.approval:not([data-decision])', { hasText: /release\.sh/ }).first();
  await approval.waitFor({ timeout: 20_000 });
  await workbench.screenshot('asked-despite-project-allow');
  await approval.locator('button', { hasText: /^Deny$/ }).click();
  await chat.locator('.message.assistant', { hasText: 'You said no.' }).waitFor({ timeout: 20_000 });
  assert.deepEqual(ran(), []);
  const request = model.requests[before]!;
  assert.deepEqual(
    toolNames(request).filter((n) => n.startsWith('mcp__')),
    [],
  );
  assert.match(systemText(request), /Cut a release of this project/);
});

test('approved in VS Code: the notice offers Braid: Approve Project Setup…, the pick approves the server alone; its tool answers a turn and Show Setup lists it running', async () => {
  const page = workbench.page;
  // Trust granted, the window said once that the project waits for approval (kept in the notification center).
  await workbench.runCommand('Notifications: Show Notifications');
  const notice = page.locator('.notifications-center .notification-list-item', { hasText: 'that need your approval' }).first();
  await notice.waitFor({ timeout: 15_000 });
  assert.match((await notice.textContent()) ?? '', /This project defines 1 MCP server and hooks or allow rules in 1 settings file/);
  await workbench.screenshot('approval-notice');
  await notice.locator('a.monaco-button', { hasText: 'Review…' }).click();
  // Braid: Approve Project Setup…: each item with what it would run, nothing approved yet.
  const row = (text: string) => page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  await row('mcp.json').waitFor({ timeout: 10_000 });
  assert.match((await row('mcp.json').textContent()) ?? '', /files.*waiting for approval.*command: sh.*mcp-files/);
  assert.match((await row('.claude/settings.json').textContent()) ?? '', /hook PreToolUse: touch .*allow Bash/);
  await row('mcp.json').click(); // checks the server only
  await workbench.screenshot('approve-pick');
  await page.locator('.quick-input-widget input').press('Enter');
  await page.locator('.notification-toast', { hasText: 'Approved files' }).waitFor({ timeout: 10_000 });

  const chat = workbench.chatFrame();
  const before = await listThroughFilesServer('v1', 'Listed after approving in VS Code.');
  // The project's allow rule is not approved: the call asks.
  const approval = chat.locator('.approval:not([data-decision])', { hasText: /list_directory/ }).first();
  await approval.waitFor({ timeout: 30_000 });
  await approval.locator('button', { hasText: /^Allow$/ }).click();
  await chat.locator('.message.assistant', { hasText: 'Listed after approving in VS Code.' }).waitFor({ timeout: 30_000 });
  assert.ok(toolNames(model.requests[before]!).includes('mcp__files__list_directory'), toolNames(model.requests[before]!).join(', '));
  assert.match(JSON.stringify(model.requests[before + 1]!.body.messages), /README\.md/, "the server's answer went back to the model");
  assert.deepEqual(ran(), ['mcp-files'], 'the approved server ran; the hooks of the file not picked did not');

  await workbench.runCommand('Braid: Show Setup');
  const document = page.locator('.monaco-editor .view-lines').first();
  // The editor draws spaces as no-break spaces.
  const shownText = async () => (await document.innerText()).replace(/\u00a0/g, ' ');
  await document
    .filter({ hasText: /files:.sh.-c.*\(running,.\d+.tools\)/ })
    .waitFor({ timeout: 15_000 })
    .catch(async (err: unknown) => {
      await workbench.screenshot('show-setup-not-running');
      throw new Error(`${String(err)}\nthe document shows: ${await shownText()}`);
    });
  const text = await shownText();
  assert.match(text, /mcp__files__list_directory: /);
  assert.match(text, /PreToolUse: touch .*\[project: \.claude\/settings\.json\] \(needs approval: Braid: Approve Project Setup…\)/);
  await workbench.screenshot('show-setup-running');
  await page.keyboard.press('Escape');
});

test("approved with the CLI: the project's server answers the model, its hooks run and its allow rule applies", async () => {
  // The CLI reads and writes the approvals where the window's extension host does (its XDG_CONFIG_HOME).
  const env = { XDG_CONFIG_HOME: path.join(workbench.profile!.home, 'config'), HOME: workbench.profile!.home };
  const mcp = await braidIn(['mcp', 'trust', 'files'], { cwd: workbench.workspace, env });
  assert.equal(mcp.code, 0, mcp.err);
  const hooks = await braidIn(['hooks', 'trust'], { cwd: workbench.workspace, env });
  assert.equal(hooks.code, 0, hooks.err);
  const chat = workbench.chatFrame();
  const before = await listThroughFilesServer('m1', 'Listed.');
  await chat
    .locator('.message.assistant', { hasText: 'Listed.' })
    .waitFor({ timeout: 30_000 })
    .catch(async (err: unknown) => {
      await workbench.screenshot('approved-not-answered');
      throw new Error(`${String(err)}\nthe chat shows: ${await chat.locator('body').innerText()}`);
    });
  await workbench.screenshot('approved');
  assert.ok(toolNames(model.requests[before]!).includes('mcp__files__list_directory'), toolNames(model.requests[before]!).join(', '));
  assert.match(JSON.stringify(model.requests[before + 1]!.body.messages), /README\.md/, "the server's answer went back to the model");
  assert.deepEqual(
    ran(),
    ['hook-PreToolUse', 'hook-SessionStart', 'hook-Stop', 'hook-UserPromptSubmit', 'mcp-files'],
    'the approved server and hooks ran; the skill script did not',
  );
});
