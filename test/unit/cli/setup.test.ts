import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { braidIn } from '../../support/cli';
import { EVERYTHING } from '../../support/mcp';
import { tempRoots } from '../../support/store';

// `braid setup` over real files: the user's settings file found through XDG_CONFIG_HOME, the
// project's files in the workspace, and what it says of a folder that is not one.
const roots = tempRoots();
after(roots.cleanup);

test('braid setup lists the user file and the project files with their items, and creates nothing', async () => {
  const root = roots.root();
  const workspace = path.join(root, 'workspace');
  const config = path.join(root, 'config');
  fs.mkdirSync(path.join(workspace, '.claude'), { recursive: true });
  fs.mkdirSync(path.join(config, 'braid'), { recursive: true });
  fs.writeFileSync(path.join(config, 'braid', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm -rf:*)'] } }));
  fs.writeFileSync(path.join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: 'mcp-server-everything' } } }));
  fs.writeFileSync(path.join(workspace, '.claude', 'settings.json'), '{ not json');
  const data = path.join(root, 'data');
  const r = await braidIn(['--data-dir', data, '--workspace', workspace, 'setup'], { env: { XDG_CONFIG_HOME: config } });
  assert.equal(r.code, 0, r.err);
  const userFile = path.join(config, 'braid', 'settings.json');
  assert.ok(r.out.includes(`Settings files\n  user: ${userFile}\n  project: .mcp.json\n  project: .claude/settings.json: not valid JSON`), r.out);
  assert.match(r.out, /MCP servers\n {2}everything: mcp-server-everything \[project: \.mcp\.json\] \(needs approval: braid mcp trust everything\)\n/);
  assert.ok(r.out.includes(`Permission rules\n  deny Bash(rm -rf:*) [user: ${userFile}]\n`), r.out);
  assert.equal(fs.existsSync(data), false, 'no data folder was created');
  assert.equal(fs.existsSync(path.join(config, 'braid', 'approvals.json')), false, 'nothing approved');
});

test('braid setup --status starts the servers that may run and lists their tools; without it none is started', async () => {
  const root = roots.root();
  const workspace = path.join(root, 'workspace');
  const config = path.join(root, 'config');
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(path.join(config, 'braid'), { recursive: true });
  fs.writeFileSync(path.join(config, 'braid', 'settings.json'), JSON.stringify({ mcpServers: { everything: { command: EVERYTHING } } }));
  fs.writeFileSync(path.join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { theirs: { command: EVERYTHING } } }));
  const env = { XDG_CONFIG_HOME: config, HOME: root, PATH: process.env.PATH };
  const plain = await braidIn(['--workspace', workspace, 'setup'], { env });
  assert.equal(plain.code, 0, plain.err);
  assert.match(plain.out, /everything: \S+ \[user: .*\] \(not started: it starts when a session needs its tools\)\n/);
  const status = await braidIn(['--workspace', workspace, 'setup', '--status'], { env });
  assert.equal(status.code, 0, status.err);
  assert.match(status.out, /everything: \S+ \[user: .*\] \(running, \d+ tools\)\n(.*\n)*? {4}mcp__everything__echo: /);
  assert.match(status.out, /theirs: \S+ \[project: \.mcp\.json\] \(needs approval: braid mcp trust theirs\)\n/, 'an unapproved server is not started');
});

test('braid setup in a folder that does not exist says so and exits 1; an argument is a usage error', async () => {
  const root = roots.root();
  const missing = await braidIn(['--data-dir', root, '--workspace', path.join(root, 'nowhere'), 'setup'], { env: {} });
  assert.equal(missing.code, 1);
  assert.match(missing.err, /nowhere does not exist or is not a folder/);
  const extra = await braidIn(['--data-dir', root, '--workspace', root, 'setup', 'extra'], { env: {} });
  assert.equal(extra.code, 2);
  assert.equal(extra.out, '');
});

test('braid help setup describes it', async () => {
  const r = await braidIn(['help', 'setup'], { env: {} });
  assert.equal(r.code, 0);
  assert.match(r.out, /Usage: braid .* setup/);
  assert.match(r.out, /braid mcp trust/);
});
