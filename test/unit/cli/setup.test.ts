import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { braidIn } from '../../support/cli';
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
  assert.match(
    r.out,
    new RegExp(`User: ${path.join(config, 'braid', 'settings.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n {2}Rule deny: Bash\\(rm -rf:\\*\\)\n`),
  );
  assert.match(r.out, /Project: \.mcp\.json\n {2}MCP server everything: mcp-server-everything \(needs approval: braid mcp trust everything\)/);
  assert.match(r.out, /Project: \.claude\/settings\.json\n {2}error: not valid JSON/);
  assert.equal(fs.existsSync(data), false, 'no data folder was created');
  assert.equal(fs.existsSync(path.join(config, 'braid', 'approvals.json')), false, 'nothing approved');
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
