import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { silentLogger } from '../../../src/core/logger';
import { workspaceTools } from '../../../src/core/tools';
import { ApprovalGate } from '../../../src/core/tools/approvals';
import { Checkpoints } from '../../../src/core/tools/checkpoints';
import { BlobStore } from '../../../src/core/format/blobStore';
import { ToolError, WorkspaceFs } from '../../../src/core/tools/workspaceFs';
import { tempDir } from '../../support/store';

// Tool arguments that try to reach outside the workspace: `..`, absolute paths, symbolic links
// (to files, to folders, as the parent of a file to create, dangling), control characters. Each
// is refused with a ToolError the model can act on, and nothing outside is read or written.
const root = tempDir('braid-paths-');
after(() => fs.rmSync(root, { recursive: true, force: true }));
const ws = path.join(root, 'ws');
const outside = path.join(root, 'outside');
const SECRET = 'the secret outside the workspace';
fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
fs.mkdirSync(path.join(outside, 'dir'), { recursive: true });
fs.writeFileSync(path.join(ws, 'src', 'ok.txt'), 'inside\n');
fs.writeFileSync(path.join(outside, 'secret.txt'), `${SECRET}\n`);
fs.writeFileSync(path.join(outside, 'dir', 'deep.txt'), `${SECRET}\n`);
fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'file-link'));
fs.symlinkSync(path.join(outside, 'dir'), path.join(ws, 'dir-link'));
fs.symlinkSync(path.join(outside, 'created-through-dangling.txt'), path.join(ws, 'dangling'));
fs.symlinkSync('../../outside/not-yet/made.txt', path.join(ws, 'src', 'relative-dangling'));
fs.symlinkSync(path.join(ws, 'loop-b'), path.join(ws, 'loop-a'));
fs.symlinkSync(path.join(ws, 'loop-a'), path.join(ws, 'loop-b'));

function tools(): Map<string, AgentTool> {
  const checkpoints = new Checkpoints(new BlobStore(path.join(root, 'blobs')), async () => undefined);
  const list = workspaceTools({
    workspace: new WorkspaceFs([ws]),
    trusted: true,
    approvals: new ApprovalGate({ request: async () => 'allow' }),
    checkpoints,
    logger: silentLogger,
  });
  return new Map(list.map((t) => [t.name, t]));
}

/** Runs a tool that must refuse: a ToolError whose message matches. */
async function refused(name: string, args: object, message: RegExp): Promise<void> {
  const tool = tools().get(name)!;
  await assert.rejects(tool.execute('call', args), (err: unknown) => {
    assert.ok(err instanceof ToolError, `${name} ${JSON.stringify(args)} threw ${(err as Error).name}: ${(err as Error).message}`);
    assert.match(err.message, message, `${name} ${JSON.stringify(args)}`);
    assert.doesNotMatch(err.message, /ERR_|EACCES|ENOENT|Received/, 'no raw Node error');
    return true;
  });
}

/** Every file under a folder with its content, to prove nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = entry.isFile() ? fs.readFileSync(full, 'utf8') : entry.isSymbolicLink() ? `-> ${fs.readlinkSync(full)}` : '/';
  }
  return out;
}

const OUTSIDE = /outside the workspace.*tools only reach files inside/;
const pathTools: Array<[string, (p: string) => object]> = [
  ['read_file', (p) => ({ path: p })],
  ['list_dir', (p) => ({ path: p })],
  ['glob', (p) => ({ pattern: '**/*', path: p })],
  ['grep', (p) => ({ pattern: 'secret', path: p })],
  ['write_file', (p) => ({ path: p, content: 'written by an attack' })],
  ['edit_file', (p) => ({ path: p, old_text: 'secret', new_text: 'pwned' })],
];

test('../ escapes and absolute paths outside the workspace are refused by every tool that takes a path', async () => {
  const before = snapshot(outside);
  const escapes = [
    '../outside/secret.txt',
    'src/../../outside/secret.txt',
    path.join(outside, 'secret.txt'),
    '/etc/passwd',
    '..',
    path.join(ws, '..', 'outside', 'dir'),
  ];
  for (const [name, args] of pathTools) {
    for (const p of escapes) await refused(name, args(p), OUTSIDE);
  }
  assert.deepEqual(snapshot(outside), before, 'nothing outside changed');
  // The same tools still work inside, by relative and by absolute path.
  assert.match(await text('read_file', { path: path.join(ws, 'src', 'ok.txt') }), /inside/);
});

test('symbolic links inside the workspace that point outside are refused: files, folders, parents of new files', async () => {
  const before = snapshot(outside);
  for (const [name, args] of pathTools) {
    await refused(name, args('file-link'), /outside the workspace \(through a symbolic link\)/);
    await refused(name, args('dir-link'), OUTSIDE);
    await refused(name, args('dir-link/deep.txt'), OUTSIDE);
  }
  await refused('write_file', { path: 'dir-link/new-file.txt', content: 'x' }, OUTSIDE);
  await refused('write_file', { path: 'dir-link/new/nested/file.txt', content: 'x' }, OUTSIDE);
  // Walking tools do not follow links out of the workspace either.
  assert.doesNotMatch(await text('glob', { pattern: '**/*' }), /deep\.txt|secret\.txt/);
  assert.doesNotMatch(await text('grep', { pattern: 'secret' }), /secret outside/);
  assert.deepEqual(snapshot(outside), before, 'nothing outside changed');
});

test('a dangling symbolic link whose target is outside cannot be written through', async () => {
  for (const p of ['dangling', 'src/relative-dangling']) {
    await refused('write_file', { path: p, content: 'x' }, OUTSIDE);
    await refused('edit_file', { path: p, old_text: 'a', new_text: 'b' }, OUTSIDE);
    await refused('read_file', { path: p }, OUTSIDE);
  }
  assert.equal(fs.existsSync(path.join(outside, 'created-through-dangling.txt')), false);
  assert.equal(fs.existsSync(path.join(outside, 'not-yet')), false);
  await refused('read_file', { path: 'loop-a' }, /loop of symbolic links/);
  await refused('write_file', { path: 'loop-a/x.txt', content: 'x' }, /loop of symbolic links/);
});

test('names with NUL, newline or other control characters are refused with a clear message, and nothing is created', async () => {
  const before = snapshot(ws);
  for (const bad of [
    'a\u0000b.txt',
    'src/ok.txt\u0000.png',
    'new\nline.txt',
    'tab\there.txt',
    'bell\u0007.txt',
    'esc\u001b[31m.txt',
    'del\u007f.txt',
    'dir\r/x.txt',
  ]) {
    for (const [name, args] of pathTools) await refused(name, args(bad), /contains a control character \(U\+00[0-9A-F]{2}\).*use a plain name/);
  }
  assert.deepEqual(snapshot(ws), before, 'nothing created in the workspace');
});

test('bash takes no folder argument: it runs in the workspace folder only', () => {
  const bash = tools().get('bash')!;
  assert.deepEqual(Object.keys((bash.parameters as { properties: object }).properties).sort(), ['command', 'timeout_ms']);
});

async function text(name: string, args: object): Promise<string> {
  const result = await tools().get(name)!.execute('call', args);
  return result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}
