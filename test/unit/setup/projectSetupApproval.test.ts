import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { silentLogger } from '../../../src/core/logger';
import { readHooks } from '../../../src/core/setup/hooks/hookConfig';
import { McpHub } from '../../../src/core/setup/mcp/hub';
import { approvalCandidates, approveCandidate, pendingApprovals, revokeCandidate } from '../../../src/core/setup/projectSetupApproval';
import { readSetupSources } from '../../../src/core/setup/sources';
import { braidIn } from '../../support/cli';
import { tempRoots } from '../../support/store';

// What VS Code's Braid: Approve Project Setup… approves (approvalCandidates, approveCandidate) against
// what the CLI's `braid mcp trust` and `braid hooks trust` write: one workspace, two user
// configuration folders, the same approvals file afterwards; and what the hub and hooks then do.
const roots = tempRoots();
after(roots.cleanup);

const projectFiles = {
  '.mcp.json': JSON.stringify({
    mcpServers: {
      files: { command: 'node', args: ['server.js', '--root', '.'], env: { TOKEN: 'secret-value', MODE: 'read' } },
      broken: { command: 'x', args: [1] },
      shared: { command: 'theirs' },
    },
  }),
  '.vscode/mcp.json': JSON.stringify({ servers: { web: { type: 'http', url: 'https://example.test/mcp', headers: { Authorization: 'Bearer hidden' } } } }),
  '.claude/settings.json': JSON.stringify({
    hooks: { PreToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command: './check.sh' }] }] },
    permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./secrets/**)'] },
  }),
  '.braid/settings.json': JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } }),
};

function workspace() {
  const root = roots.root();
  const dir = path.join(root, 'workspace');
  for (const [name, text] of Object.entries(projectFiles)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const user = (name: string) => {
    const config = path.join(root, name);
    fs.mkdirSync(path.join(config, 'braid'), { recursive: true });
    fs.writeFileSync(path.join(config, 'braid', 'settings.json'), JSON.stringify({ mcpServers: { shared: { command: 'mine' } } }));
    const env = { XDG_CONFIG_HOME: config, HOME: root };
    return { env, approvalsFile: path.join(config, 'braid', 'approvals.json'), read: () => readSetupSources({ workspaceDir: dir, trusted: true, env }) };
  };
  return { dir, user };
}

test("the candidates are the project's usable servers and its settings files, with what each would run; values are never shown", () => {
  const ws = workspace();
  const candidates = approvalCandidates(ws.user('config').read());
  assert.deepEqual(
    candidates.map((c) => [c.kind, c.name, c.approved]),
    [
      ['mcp', 'files', false],
      ['mcp', 'web', false],
      ['settings', '.claude/settings.json', false],
      ['settings', '.braid/settings.json', false],
    ],
    "an invalid definition and a server the user's own replaces are not offered",
  );
  assert.deepEqual(candidates[0]!.details, ['command: node', 'args: ["server.js","--root","."]', 'env names: MODE, TOKEN']);
  assert.deepEqual(candidates[1]!.details, ['http: https://example.test/mcp', 'header names: Authorization']);
  assert.deepEqual(candidates[2]!.details, ['hook PreToolUse (bash): ./check.sh', 'allow Bash(npm test:*)']);
  assert.doesNotMatch(JSON.stringify(candidates), /secret-value|Bearer hidden/);
});

test('approving in VS Code writes the approvals braid mcp trust and braid hooks trust write, item for item and hash for hash', async () => {
  const ws = workspace();
  const cli = ws.user('cli-config');
  for (const args of [
    ['mcp', 'trust', 'files'],
    ['mcp', 'trust', 'web'],
    ['hooks', 'trust'],
  ]) {
    const r = await braidIn(['--workspace', ws.dir, ...args], { env: cli.env });
    assert.equal(r.code, 0, r.err);
  }
  const vscodePick = ws.user('vscode-config');
  for (const candidate of approvalCandidates(vscodePick.read())) await approveCandidate(vscodePick.read(), candidate);
  const written = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as { projects: Record<string, Record<string, string>> };
  const byCli = written(cli.approvalsFile);
  assert.deepEqual(Object.keys(Object.values(byCli.projects)[0]!).sort(), [
    'mcp:files',
    'mcp:web',
    'settings:.braid/settings.json',
    'settings:.claude/settings.json',
  ]);
  assert.deepEqual(written(vscodePick.approvalsFile), byCli);
  assert.deepEqual(pendingApprovals(vscodePick.read()), []);
  assert.deepEqual(pendingApprovals(cli.read()), [], 'the CLI sees its approvals as the pick sees them');
  // And what runs agrees: the hub starts the approved servers, the hooks reader runs the approved hooks.
  const hub = new McpHub({ sources: vscodePick.read(), env: vscodePick.env, logger: silentLogger });
  assert.deepEqual(
    hub.statuses().map((s) => [s.name, s.state]),
    [
      ['broken', 'invalid'],
      ['files', 'not started'],
      ['shared', 'not started'],
      ['web', 'not started'],
    ],
  );
  assert.ok(readHooks(vscodePick.read()).hooks.every((h) => h.runs));
});

test('only what is picked is approved; the hub and the hooks follow; a revoke asks again', async () => {
  const ws = workspace();
  const user = ws.user('config');
  const files = approvalCandidates(user.read()).find((c) => c.name === 'files')!;
  await approveCandidate(user.read(), files);
  const hub = new McpHub({ sources: user.read(), env: user.env, logger: silentLogger });
  const state = () => Object.fromEntries(hub.statuses().map((s) => [s.name, s.state]));
  assert.equal(state().files, 'not started', 'approved: the hub may start it');
  assert.equal(state().web, 'unapproved', 'not picked: still waits');
  assert.ok(
    readHooks(user.read()).hooks.every((h) => !h.runs),
    'no settings file was picked: its hooks do not run',
  );
  assert.deepEqual(
    pendingApprovals(user.read()).map((c) => c.name),
    ['web', '.claude/settings.json', '.braid/settings.json'],
  );
  await approveCandidate(
    user.read(),
    approvalCandidates(user.read()).find((c) => c.name === '.braid/settings.json')!,
  );
  assert.deepEqual(
    readHooks(user.read()).hooks.map((h) => [h.command, h.runs]),
    [
      ['./check.sh', false],
      ['say done', true],
    ],
  );
  await revokeCandidate(user.read(), files);
  assert.equal(state().files, 'unapproved');
  assert.equal(approvalCandidates(user.read()).find((c) => c.name === 'files')!.approved, false);
});
