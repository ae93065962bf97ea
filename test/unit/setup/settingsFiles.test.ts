import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { definitionHash, ProjectApprovals } from '../../../src/core/setup/projectApprovals';
import { readProjectMcpFiles, readProjectSettingsFiles, stripJsonComments, userSettingsFile } from '../../../src/core/setup/settingsFiles';
import { readSetupSources } from '../../../src/core/setup/sources';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'braid-setup-'));
}

function write(root: string, relative: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.writeFileSync(path.join(root, relative), text);
}

test('the user settings file is under XDG_CONFIG_HOME, else ~/.config', () => {
  assert.equal(userSettingsFile({ XDG_CONFIG_HOME: '/x/conf', HOME: '/h' }), path.join('/x/conf', 'braid', 'settings.json'));
  assert.equal(userSettingsFile({ HOME: '/h' }), path.join('/h', '.config', 'braid', 'settings.json'));
  assert.equal(
    userSettingsFile({ XDG_CONFIG_HOME: 'relative', HOME: '/h' }),
    path.join('/h', '.config', 'braid', 'settings.json'),
    'a relative XDG path is ignored, as the spec says',
  );
});

test("the project's MCP files: Claude Code's mcpServers and VS Code's servers, comments and trailing commas allowed", () => {
  const ws = tempDir();
  write(ws, '.mcp.json', '{"mcpServers": {"a": {"command": "x"}}}');
  write(ws, '.vscode/mcp.json', '{\n // a comment\n "servers": {"b": {"type": "stdio", "command": "y", "args": ["//not a comment",],},},\n}');
  const sources = readProjectMcpFiles(ws);
  assert.deepEqual(
    sources.map((s) => [path.relative(ws, s.file), s.settings.mcpServers, s.error]),
    [
      ['.mcp.json', { a: { command: 'x' } }, undefined],
      [path.join('.vscode', 'mcp.json'), { b: { type: 'stdio', command: 'y', args: ['//not a comment'] } }, undefined],
    ],
  );
  assert.equal(stripJsonComments('{"a": "x,}"}'), '{"a": "x,}"}', 'a comma inside a string stays');
});

test('a broken, linked, huge or special project file is reported, never read through, never fatal', () => {
  const ws = tempDir();
  const outside = tempDir();
  write(outside, 'settings.json', '{"permissions": {"allow": ["Bash"]}}');
  fs.mkdirSync(path.join(ws, '.claude'));
  fs.symlinkSync(path.join(outside, 'settings.json'), path.join(ws, '.claude', 'settings.json'));
  write(ws, '.braid/settings.json', '{"hooks": ');
  write(ws, '.mcp.json', ' '.repeat(1024 * 1024 + 10) + '{}');
  const sources = [...readProjectMcpFiles(ws), ...readProjectSettingsFiles(ws)];
  const byFile = Object.fromEntries(sources.map((s) => [path.relative(ws, s.file), s]));
  assert.match(byFile['.claude/settings.json']!.error!, /symbolic link/);
  assert.deepEqual(byFile['.claude/settings.json']!.settings, {}, 'nothing read through the link');
  assert.match(byFile['.braid/settings.json']!.error!, /not valid JSON/);
  assert.match(byFile['.mcp.json']!.error!, /larger than/);
  if (process.platform !== 'win32') {
    const fifoWs = tempDir();
    fs.mkdirSync(path.join(fifoWs, '.claude'));
    execFileSync('mkfifo', [path.join(fifoWs, '.claude', 'settings.json')]);
    const [fifo] = readProjectSettingsFiles(fifoWs);
    assert.match(fifo!.error!, /named pipe/, 'a FIFO cannot hang the read');
  }
});

test('sources: the user file and VS Code settings first, then the project files; trust is carried', () => {
  const ws = tempDir();
  const config = tempDir();
  write(config, 'braid/settings.json', '{"permissions": {"deny": ["Read(./secrets/**)"]}, "other": 1}');
  write(ws, '.claude/settings.json', '{"hooks": {"Stop": []}}');
  const sources = readSetupSources({ workspaceDir: ws, trusted: false, vscode: { mcpServers: { v: { command: 'v' } } }, env: { XDG_CONFIG_HOME: config } });
  assert.deepEqual(
    sources.user.map((s) => [s.origin, s.settings]),
    [
      ['user', { permissions: { deny: ['Read(./secrets/**)'] } }],
      ['vscode', { mcpServers: { v: { command: 'v' } } }],
    ],
  );
  assert.deepEqual(
    sources.project.map((s) => [s.origin, path.relative(ws, s.file), s.settings]),
    [['project', path.join('.claude', 'settings.json'), { hooks: { Stop: [] } }]],
  );
  assert.equal(sources.trusted, false);
  assert.equal(sources.approvals.file, path.join(config, 'braid', 'approvals.json'));
});

test('an approval holds for exactly the definition approved, in that folder, across processes', async () => {
  const config = tempDir();
  const ws = tempDir();
  const approvals = new ProjectApprovals(path.join(config, 'braid', 'approvals.json'));
  const definition = { command: 'node', args: ['server.js'], env: ['TOKEN'] };
  const key = { workspace: ws, item: 'mcp:db' };
  assert.equal(approvals.isApproved(key, definitionHash(definition)), false);
  await approvals.approve(key, definitionHash(definition));
  const again = new ProjectApprovals(approvals.file); // another process reads the same file
  assert.equal(again.isApproved(key, definitionHash({ env: ['TOKEN'], args: ['server.js'], command: 'node' })), true, 'key order does not matter');
  assert.equal(again.isApproved(key, definitionHash({ ...definition, args: ['other.js'] })), false, 'a changed definition asks again');
  assert.equal(again.isApproved({ workspace: tempDir(), item: 'mcp:db' }, definitionHash(definition)), false, 'another folder');
  const link = path.join(tempDir(), 'link');
  fs.symlinkSync(ws, link);
  assert.equal(again.isApproved({ workspace: link, item: 'mcp:db' }, definitionHash(definition)), true, 'a link to the folder is the folder');
  await again.revoke(key);
  assert.equal(approvals.isApproved(key, definitionHash(definition)), false);
  fs.writeFileSync(approvals.file, '{not json');
  assert.equal(approvals.isApproved(key, definitionHash(definition)), false, 'an unreadable file approves nothing');
});
