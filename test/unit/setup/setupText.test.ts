import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { approvedShape, parseDefinition } from '../../../src/core/setup/mcp/definitions';
import { definitionHash } from '../../../src/core/setup/projectApprovals';
import { setupText } from '../../../src/core/setup/setupText';
import { readSetupSources } from '../../../src/core/setup/sources';
import { tempRoots } from '../../support/store';

// The setup listing over real files: a user settings file (XDG_CONFIG_HOME in a temp folder), the
// project's files, a broken one, links out of the workspace, trust and approvals.
const roots = tempRoots();
after(roots.cleanup);

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
  const env = { XDG_CONFIG_HOME: config };
  return { root, workspace, env, read: (trusted = true) => readSetupSources({ workspaceDir: workspace, trusted, env }) };
}

const claudeSettings = JSON.stringify({
  hooks: { PreToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command: './check.sh', timeout: 5 }] }] },
  permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./secrets/**)'] },
});

test('each source is listed with its servers, hooks and rules; the user file first, then the project files', () => {
  const s = setup(
    {
      '.mcp.json': JSON.stringify({ mcpServers: { files: { command: 'npx', args: ['-y', 'server-filesystem', '.'], env: { TOKEN: 'project-secret' } } } }),
      '.vscode/mcp.json':
        '// VS Code allows comments\n{ "servers": { "web": { "type": "http", "url": "https://example.test/mcp", "headers": { "Authorization": "Bearer hidden" } }, } }',
      '.claude/settings.json': claudeSettings,
      '.claude/skills/review/SKILL.md': '---\nname: review\ndescription: Reviews\n---\nbody',
      '.claude/commands/fix.md': 'Fix $ARGUMENTS',
      '.github/prompts/plan.prompt.md': '---\ndescription: plan\n---\nPlan',
    },
    {
      'settings.json': JSON.stringify({ mcpServers: { mine: { command: 'my-server' } }, permissions: { ask: ['WebFetch'] } }),
      'skills/notes/SKILL.md': '---\nname: notes\n---\n',
      'commands/standup.md': 'Standup',
    },
  );
  const text = setupText(s.read());
  const expectInOrder = [
    `User: ${path.join(s.root, 'config', 'braid', 'settings.json')}`,
    '  MCP server mine: my-server',
    '  Rule ask: WebFetch',
    'Project: .mcp.json',
    '  MCP server files: npx -y server-filesystem .; environment TOKEN (needs approval: braid mcp trust files)',
    'Project: .vscode/mcp.json',
    '  MCP server web: http https://example.test/mcp; headers Authorization (needs approval: braid mcp trust web)',
    'Project: .claude/settings.json',
    '  Hook PreToolUse (matcher bash): ./check.sh (needs approval: braid hooks trust)',
    '  Rule deny: Read(./secrets/**)',
    '  Rule allow: Bash(npm test:*) (needs approval: braid hooks trust)',
    'Skills',
    '  review: .claude/skills/review',
    `  notes: ${path.join(s.root, 'config', 'braid', 'skills', 'notes')}`,
    'Commands',
    '  /fix: .claude/commands/fix.md',
    '  /plan: .github/prompts/plan.prompt.md',
    `  /standup: ${path.join(s.root, 'config', 'braid', 'commands', 'standup.md')}`,
  ];
  let at = 0;
  for (const line of expectInOrder) {
    const found = text.indexOf(`${line}\n`, at);
    assert.ok(found >= at, `"${line}" after position ${at} in:\n${text}`);
    at = found + line.length;
  }
  assert.doesNotMatch(text, /project-secret|Bearer hidden/, 'values of environment variables and headers are never shown');
});

test('an approved definition says so; a changed definition needs approval again', async () => {
  const server = { command: 'node', args: ['server.js'] };
  const s = setup({ '.mcp.json': JSON.stringify({ mcpServers: { local: server } }), '.claude/settings.json': claudeSettings });
  const sources = s.read();
  // Approved as `braid mcp trust local` approves it: the hash of the parsed definition's approved shape.
  const parsed = parseDefinition(server);
  assert.ok('definition' in parsed);
  await sources.approvals.approve({ workspace: s.workspace, item: 'mcp:local' }, definitionHash(approvedShape(parsed.definition)));
  await sources.approvals.approve({ workspace: s.workspace, item: 'settings:.claude/settings.json' }, definitionHash(JSON.parse(claudeSettings)));
  const approved = setupText(s.read());
  assert.match(approved, /MCP server local: node server\.js \(approved\)/);
  assert.match(approved, /Hook PreToolUse \(matcher bash\): \.\/check\.sh \(approved\)/);
  assert.match(approved, /Rule allow: Bash\(npm test:\*\)\n/, 'an approved file allows');
  fs.writeFileSync(path.join(s.workspace, '.mcp.json'), JSON.stringify({ mcpServers: { local: { ...server, args: ['other.js'] } } }));
  assert.match(setupText(s.read()), /MCP server local: node other\.js \(needs approval: braid mcp trust local\)/);
});

test("in an untrusted workspace every project item says it is not used; the user's are listed as they are", () => {
  const s = setup(
    { '.mcp.json': JSON.stringify({ mcpServers: { files: { command: 'npx' } } }), '.claude/settings.json': claudeSettings, '.claude/commands/fix.md': 'Fix' },
    { 'settings.json': JSON.stringify({ mcpServers: { mine: { command: 'my-server' } } }) },
  );
  const text = setupText(s.read(false));
  assert.match(text, /The workspace is not trusted/);
  for (const line of [
    'MCP server files: npx (not used: the workspace is not trusted)',
    'Hook PreToolUse (matcher bash): ./check.sh (not used: the workspace is not trusted)',
    'Rule deny: Read(./secrets/**) (not used: the workspace is not trusted)',
    '/fix: .claude/commands/fix.md (not used: the workspace is not trusted)',
  ])
    assert.ok(text.includes(line), `${line} in:\n${text}`);
  assert.match(text, /MCP server mine: my-server\n/);
});

test('a broken file is listed with its error and the rest still shows', () => {
  const s = setup({ '.braid/settings.json': '{ "hooks": ', '.mcp.json': '[1, 2]', '.claude/settings.json': claudeSettings });
  const text = setupText(s.read());
  assert.match(text, /Project: \.braid\/settings\.json\n {2}error: not valid JSON/);
  assert.match(text, /Project: \.mcp\.json\n {2}error: not a JSON object/);
  assert.match(text, /Hook PreToolUse/);
});

test('links out of the workspace are refused, not followed: a settings file, a skills folder, a command', () => {
  const s = setup({ 'README.md': 'hi' });
  const outside = path.join(s.root, 'outside');
  fs.mkdirSync(path.join(outside, 'skills', 'stolen'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'skills', 'stolen', 'SKILL.md'), '---\nname: stolen\n---\n');
  fs.writeFileSync(path.join(outside, 'mcp.json'), JSON.stringify({ mcpServers: { evil: { command: 'evil' } } }));
  fs.writeFileSync(path.join(outside, 'cmd.md'), 'stolen command');
  fs.symlinkSync(path.join(outside, 'mcp.json'), path.join(s.workspace, '.mcp.json'));
  fs.mkdirSync(path.join(s.workspace, '.claude', 'commands'), { recursive: true });
  fs.symlinkSync(path.join(outside, 'skills'), path.join(s.workspace, '.claude', 'skills'));
  fs.symlinkSync(path.join(outside, 'cmd.md'), path.join(s.workspace, '.claude', 'commands', 'linked.md'));
  const text = setupText(s.read());
  assert.doesNotMatch(text, /evil|stolen:/);
  assert.match(text, /Project: \.mcp\.json\n {2}error: not read: .*link/);
  assert.match(text, /error: not read: \.claude\/skills is a symbolic link/);
  assert.match(text, /not used: \.claude\/commands\/linked\.md: a symbolic link/);
});

test("a project server named like one of the user's is not used: the user's wins", () => {
  const s = setup(
    { '.mcp.json': JSON.stringify({ mcpServers: { shared: { command: 'project-one' } } }) },
    { 'settings.json': JSON.stringify({ mcpServers: { shared: { command: 'mine' } } }) },
  );
  assert.match(setupText(s.read()), /MCP server shared: project-one \(not used: your own server of the same name is used\)/);
});
