import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { silentLogger } from '../../../src/core/logger';
import { readHooks } from '../../../src/core/setup/hooks/hookConfig';
import { McpHub } from '../../../src/core/setup/mcp/hub';
import { PermissionRules } from '../../../src/core/setup/permissions/permissionRules';
import { approveProjectSettings } from '../../../src/core/setup/permissions/settingsApproval';
import { approvalCandidates, approveCandidate } from '../../../src/core/setup/projectSetupApproval';
import { setupText } from '../../../src/core/setup/setupText';
import { discoverSkills } from '../../../src/core/setup/skills/skills';
import { setupPlaces } from '../../../src/core/setup/skills/places';
import { readSetupSources } from '../../../src/core/setup/sources';
import { EVERYTHING } from '../../support/mcp';
import { tempRoots } from '../../support/store';

// The setup listing over real files (a user settings file through XDG_CONFIG_HOME, a home folder,
// the project's files), compared with what the code that runs reads from them: the MCP hub's
// statuses, the hooks reader, the permission rules, the skills and commands discovery.
const roots = tempRoots();
after(roots.cleanup);
const hubs: McpHub[] = [];
after(async () => {
  for (const hub of hubs) await hub.close();
});

/** A workspace with `files` and a user configuration folder with `user` (paths relative to each). */
function setup(files: Record<string, string>, user: Record<string, string> = {}) {
  const root = roots.root();
  const workspace = path.join(root, 'workspace');
  const config = path.join(root, 'config');
  for (const [base, all] of [
    [workspace, files],
    [path.join(config, 'braid'), user],
  ] as const) {
    fs.mkdirSync(base, { recursive: true });
    for (const [name, content] of Object.entries(all)) {
      fs.mkdirSync(path.dirname(path.join(base, name)), { recursive: true });
      fs.writeFileSync(path.join(base, name), content);
    }
  }
  const env = { XDG_CONFIG_HOME: config, HOME: path.join(root, 'home'), PATH: process.env.PATH };
  const read = (trusted = true) => readSetupSources({ workspaceDir: workspace, trusted, env });
  return { root, workspace, env, read, text: (trusted = true) => setupText(read(trusted), { env }) };
}

function assertInOrder(text: string, lines: readonly string[]): void {
  let at = 0;
  for (const line of lines) {
    const found = text.indexOf(`${line}\n`, at);
    assert.ok(found >= at, `"${line}" after position ${at} in:\n${text}`);
    at = found + line.length;
  }
}

const claudeSettings = JSON.stringify({
  hooks: { PreToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command: './check.sh', timeout: 5 }] }] },
  permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./secrets/**)'] },
});

test('the listing has each part with where each item came from; values of variables and headers are never shown', () => {
  const s = setup(
    {
      '.mcp.json': JSON.stringify({ mcpServers: { files: { command: 'npx', args: ['-y', 'server-filesystem', '.'], env: { TOKEN: 'project-secret' } } } }),
      '.vscode/mcp.json':
        '// VS Code allows comments\n{ "servers": { "web": { "type": "http", "url": "https://example.test/mcp", "headers": { "Authorization": "Bearer hidden" } }, } }',
      '.claude/settings.json': claudeSettings,
      '.claude/skills/review/SKILL.md': '---\nname: review\ndescription: Reviews a change\n---\nbody',
      '.claude/commands/fix.md': 'Fix $ARGUMENTS',
      '.github/prompts/plan.prompt.md': '---\ndescription: plan\n---\nPlan',
    },
    {
      'settings.json': JSON.stringify({ mcpServers: { mine: { command: 'my-server' } }, permissions: { ask: ['WebFetch'] } }),
      'skills/notes/SKILL.md': '---\nname: notes\ndescription: Takes notes\n---\n',
      'commands/standup.md': 'Standup',
    },
  );
  const userFile = path.join(s.root, 'config', 'braid', 'settings.json');
  const text = s.text();
  assertInOrder(text, [
    'Settings files',
    `  user: ${userFile}`,
    '  project: .mcp.json',
    '  project: .vscode/mcp.json',
    '  project: .claude/settings.json',
    'MCP servers',
    '  files: npx -y server-filesystem .; environment TOKEN [project: .mcp.json] (needs approval: braid mcp trust files)',
    `  mine: my-server [user: ${userFile}] (not started: it starts when a session needs its tools)`,
    '  web: http https://example.test/mcp; headers Authorization [project: .vscode/mcp.json] (needs approval: braid mcp trust web)',
    'Hooks',
    '  PreToolUse (matcher bash): ./check.sh [project: .claude/settings.json] (needs approval: braid hooks trust)',
    'Permission rules',
    '  deny Read(./secrets/**) [project: .claude/settings.json]',
    `  ask WebFetch [user: ${userFile}]`,
    '  allow Bash(npm test:*) [project: .claude/settings.json] (needs approval: braid hooks trust)',
    'Skills',
    `  notes: ${path.join(s.root, 'config', 'braid', 'skills', 'notes', 'SKILL.md')} [user: ${path.join(s.root, 'config', 'braid', 'skills')}]`,
    '  review: .claude/skills/review/SKILL.md [project: .claude/skills]',
    'Commands',
    '  /fix: .claude/commands/fix.md [project: .claude/commands]',
    '  /plan: .github/prompts/plan.prompt.md [project: .github/prompts]',
    `  /standup: ${path.join(s.root, 'config', 'braid', 'commands', 'standup.md')} [user: ${path.join(s.root, 'config', 'braid', 'commands')}]`,
  ]);
  assert.doesNotMatch(text, /project-secret|Bearer hidden/, 'values of environment variables and headers are never shown');
});

test('approved as braid hooks trust and the VS Code pick approve, hooks and allow rules are listed as used, as the hooks reader and the rules use them', async () => {
  const server = { command: 'node', args: ['server.js'] };
  const s = setup({ '.mcp.json': JSON.stringify({ mcpServers: { local: server } }), '.claude/settings.json': claudeSettings });
  await approveProjectSettings(s.read());
  const candidate = approvalCandidates(s.read()).find((c) => c.name === 'local')!;
  await approveCandidate(s.read(), candidate);
  const sources = s.read();
  assert.ok(
    readHooks(sources).hooks.every((h) => h.runs),
    'the hooks reader runs the approved hook',
  );
  assert.ok(
    PermissionRules.fromSources(sources).rules.every((r) => r.applies),
    'the approved allow rule applies',
  );
  const approved = s.text();
  assert.match(approved, /local: node server\.js \[project: \.mcp\.json\] \(not started: /);
  assert.match(approved, /PreToolUse \(matcher bash\): \.\/check\.sh \[project: \.claude\/settings\.json\]\n/);
  assert.match(approved, /allow Bash\(npm test:\*\) \[project: \.claude\/settings\.json\]\n/);
  fs.writeFileSync(path.join(s.workspace, '.mcp.json'), JSON.stringify({ mcpServers: { local: { ...server, args: ['other.js'] } } }));
  assert.match(s.text(), /local: node other\.js \[project: \.mcp\.json\] \(needs approval: braid mcp trust local\)/);
});

test("servers are listed with the hub's state: the reason it refuses a definition, why one failed, a running one's tools", async () => {
  const s = setup(
    { '.mcp.json': JSON.stringify({ mcpServers: { odd: { command: 'x', args: [1] }, gone: { command: path.join(path.sep, 'no', 'such', 'server') } } }) },
    { 'settings.json': JSON.stringify({ mcpServers: { everything: { command: EVERYTHING } } }) },
  );
  await approveCandidate(
    s.read(),
    approvalCandidates(s.read()).find((c) => c.name === 'gone')!,
  );
  const hub = new McpHub({ sources: s.read(), env: s.env, logger: silentLogger });
  hubs.push(hub);
  const before = setupText(hub.sources, { hub, env: s.env });
  const odd = hub.statuses().find((x) => x.name === 'odd')!;
  assert.equal(odd.state, 'invalid');
  assert.ok(before.includes(`  odd: its definition is not valid [project: .mcp.json] (not used: ${odd.error})\n`), before);
  assert.match(before, /everything: \S+ \[user: .*\] \(not started: /);
  await hub.startAll();
  const text = setupText(hub.sources, { hub, env: s.env });
  const statuses = Object.fromEntries(hub.statuses().map((x) => [x.name, x]));
  assert.equal(statuses.everything!.state, 'running', statuses.everything!.error);
  assert.match(text, new RegExp(`everything: \\S+ \\[user: .*\\] \\(running, ${statuses.everything!.tools.length} tools\\)\\n {4}mcp__everything__`));
  for (const tool of statuses.everything!.tools) assert.ok(text.includes(`    ${tool.agentName}: `), `${tool.agentName} in:\n${text}`);
  assert.equal(statuses.gone!.state, 'failed');
  assert.ok(text.includes(`(failed: ${statuses.gone!.error})`), text);
});

test('skills and commands are those the discovery finds: one it skips is listed as not used with its reason, one a same-named one hides too', () => {
  const s = setup(
    {
      '.claude/skills/vague/SKILL.md': '---\nname: vague\n---\nno description',
      '.claude/skills/notes/SKILL.md': '---\nname: notes\ndescription: The project notes\n---\n',
      '.claude/commands/two words.md': 'Not typeable',
    },
    { 'skills/notes/SKILL.md': '---\nname: notes\ndescription: My notes\n---\n' },
  );
  const text = s.text();
  const places = setupPlaces(s.workspace, true, path.join(s.root, 'config', 'braid'), s.env);
  assert.deepEqual(
    discoverSkills(places).items.map((i) => i.name),
    ['notes'],
  );
  assert.doesNotMatch(text, /^ {2}vague:/m, 'a skill the discovery skips is not listed as one');
  assert.match(text, /not used: \.claude\/skills\/vague\/SKILL\.md: its front matter has no description/);
  assert.match(text, /not used: \.claude\/skills\/notes\/SKILL\.md: notes in .*config\/braid\/skills\/notes\/SKILL\.md is used/);
  assert.match(text, /not used: \.claude\/commands\/two words\.md: its name is not letters/);
});

test("in an untrusted workspace the project's servers, hooks, allow rules, skills and commands say they are not used", () => {
  const s = setup(
    {
      '.mcp.json': JSON.stringify({ mcpServers: { files: { command: 'npx' } } }),
      '.claude/settings.json': claudeSettings,
      '.claude/commands/fix.md': 'Fix',
    },
    { 'settings.json': JSON.stringify({ mcpServers: { mine: { command: 'my-server' } } }) },
  );
  const text = s.text(false);
  assert.match(text, /The workspace is not trusted/);
  for (const line of [
    'files: npx [project: .mcp.json] (not used: the workspace is not trusted)',
    'PreToolUse (matcher bash): ./check.sh [project: .claude/settings.json] (not used: the workspace is not trusted)',
    'allow Bash(npm test:*) [project: .claude/settings.json] (not used: the workspace is not trusted)',
    '/fix: .claude/commands/fix.md [project: .claude/commands] (not used: the workspace is not trusted)',
  ])
    assert.ok(text.includes(line), `${line} in:\n${text}`);
  assert.match(text, /mine: my-server \[user: .*\] \(not started/);
});

test('a broken file is listed with its error and the rest still shows; problems the readers report are listed', () => {
  const s = setup({
    '.braid/settings.json': '{ "hooks": ',
    '.mcp.json': '[1, 2]',
    '.claude/settings.json': claudeSettings,
    '.claude/settings.local.json': JSON.stringify({ hooks: { NoSuchEvent: [] }, permissions: { deny: ['Bash(('] } }),
  });
  const text = s.text();
  assert.match(text, /project: \.braid\/settings\.json: not valid JSON.* \(not used\)/);
  assert.match(text, /project: \.mcp\.json: not a JSON object.* \(not used\)/);
  assert.match(text, /PreToolUse \(matcher bash\)/);
  assert.match(text, /not used: \.claude\/settings\.local\.json: "NoSuchEvent" is not a hook event Braid knows/);
  assert.match(text, /Permission rules\n(.*\n)* {2}not used: \.claude\/settings\.local\.json: /);
});

test('links out of the workspace are not followed: a settings file, a skills folder, a command', () => {
  const s = setup({ 'README.md': 'hi' });
  const outside = path.join(s.root, 'outside');
  fs.mkdirSync(path.join(outside, 'skills', 'stolen'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'skills', 'stolen', 'SKILL.md'), '---\nname: stolen\ndescription: Stolen\n---\n');
  fs.writeFileSync(path.join(outside, 'mcp.json'), JSON.stringify({ mcpServers: { evil: { command: 'evil' } } }));
  fs.writeFileSync(path.join(outside, 'cmd.md'), 'stolen command');
  fs.symlinkSync(path.join(outside, 'mcp.json'), path.join(s.workspace, '.mcp.json'));
  fs.mkdirSync(path.join(s.workspace, '.claude', 'commands'), { recursive: true });
  fs.symlinkSync(path.join(outside, 'skills'), path.join(s.workspace, '.claude', 'skills'));
  fs.symlinkSync(path.join(outside, 'cmd.md'), path.join(s.workspace, '.claude', 'commands', 'linked.md'));
  const text = s.text();
  assert.doesNotMatch(text, /evil|stolen|linked/);
  assert.match(text, /project: \.mcp\.json: not read: .*link/);
});

test("a project server named like one of the user's is listed as not used: the user's is", () => {
  const s = setup(
    { '.mcp.json': JSON.stringify({ mcpServers: { shared: { command: 'project-one' } } }) },
    { 'settings.json': JSON.stringify({ mcpServers: { shared: { command: 'mine' } } }) },
  );
  assert.match(s.text(), /shared: project-one \[project: \.mcp\.json\] \(not used: the server of the same name in .*settings\.json is used\)/);
});
