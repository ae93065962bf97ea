import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { silentLogger } from '../../../src/core/logger';
import { gitContext } from '../../../src/core/session/gitContext';
import { workspaceTools } from '../../../src/core/tools';
import { ApprovalGate, type ApprovalRequest } from '../../../src/core/tools/approvals';
import { Checkpoints } from '../../../src/core/tools/checkpoints';
import { BlobStore } from '../../../src/core/format/blobStore';
import { LIMITS } from '../../../src/core/tools/context';
import { WorkspaceFs } from '../../../src/core/tools/workspaceFs';
import { tempDir } from '../../support/store';

const root = tempDir('braid-tools-');
after(() => fs.rmSync(root, { recursive: true, force: true }));
const ws = path.join(root, 'ws');
const files: Record<string, string> = {
  '.gitignore': 'build/\n*.log\n',
  'src/a.ts': 'export const answer = 42;\n// TODO: more\n',
  'src/b.js': 'const answer = "forty-two";\n',
  'src/nested/.gitignore': 'secret.ts\n',
  'src/nested/secret.ts': 'export const answer = "hidden";\n',
  'src/nested/ok.ts': 'export const fine = true;\n',
  'build/out.ts': 'export const answer = 0;\n',
  'debug.log': 'answer in a log\n',
  'image.bin': '\u0000\u0001binary',
};
for (const [name, content] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(path.join(ws, name)), { recursive: true });
  fs.writeFileSync(path.join(ws, name), content);
}

/** The approval requests the tools made, newest last. */
const asked: ApprovalRequest[] = [];

function tools(): Map<string, AgentTool> {
  const checkpoints = new Checkpoints(new BlobStore(path.join(root, 'blobs')), async () => undefined);
  const list = workspaceTools({
    workspace: new WorkspaceFs([ws]),
    trusted: true,
    approvals: new ApprovalGate({
      request: async (request) => {
        asked.push(request);
        return 'allow';
      },
    }),
    checkpoints,
    logger: silentLogger,
  });
  return new Map(list.map((t) => [t.name, t]));
}

async function run(name: string, args: object, signal?: AbortSignal): Promise<string> {
  const result = await tools().get(name)!.execute('call', args, signal);
  return result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

test('glob and grep skip what .gitignore files ignore, at any depth', async () => {
  assert.deepEqual((await run('glob', { pattern: '**/*.ts' })).split('\n'), ['src/a.ts', 'src/nested/ok.ts']);
  const grep = await run('grep', { pattern: 'answer' });
  assert.match(grep, /src\/a\.ts:1: export const answer = 42;/);
  assert.match(grep, /src\/b\.js:1:/);
  assert.doesNotMatch(grep, /secret|build|debug\.log|image\.bin/);
  assert.equal(await run('grep', { pattern: 'answer', include: '*.js' }), 'src/b.js:1: const answer = "forty-two";');
  await assert.rejects(run('grep', { pattern: '(' }), /invalid regular expression/);
});

test('read_file numbers lines, pages with offset and limit, and refuses binaries and folders politely', async () => {
  assert.equal(await run('read_file', { path: 'src/a.ts', offset: 1, limit: 1 }), '     1\texport const answer = 42;\n[1 more lines; read on with offset=2]');
  assert.equal(await run('read_file', { path: 'src/a.ts', offset: 2, limit: 1 }), '     2\t// TODO: more', 'a final newline ends the last line; it adds none');
  assert.match(await run('read_file', { path: 'image.bin' }), /binary file/);
  await assert.rejects(run('read_file', { path: 'src' }), /is a folder; use list_dir/);
  await assert.rejects(run('read_file', { path: 'nope.txt' }), /does not exist/);
  assert.equal(await run('list_dir', { path: 'src' }), 'a.ts\nb.js\nnested/');
});

test('write_file says how many lines it wrote, counted as read_file numbers them', async () => {
  assert.equal(await run('write_file', { path: 'out/one.txt', content: 'Hello\n' }), 'Created out/one.txt (1 line).');
  assert.equal(await run('write_file', { path: 'out/one.txt', content: 'a\nb' }), 'Replaced out/one.txt (2 lines).');
  assert.equal(await run('write_file', { path: 'out/empty.txt', content: '' }), 'Created out/empty.txt (0 lines).');
});

test('edit_file says when the text is missing or not unique; replace_all replaces every one', async () => {
  fs.writeFileSync(path.join(ws, 'dup.txt'), 'x y x\n');
  await assert.rejects(run('edit_file', { path: 'dup.txt', old_text: 'z', new_text: 'q' }), /not found in dup\.txt/);
  await assert.rejects(run('edit_file', { path: 'dup.txt', old_text: 'x', new_text: 'q' }), /appears 2 times/);
  await run('edit_file', { path: 'dup.txt', old_text: 'x', new_text: '$&q', replace_all: true });
  assert.equal(fs.readFileSync(path.join(ws, 'dup.txt'), 'utf8'), '$&q y $&q\n', 'replacement text is literal');
});

test('bash runs in the workspace, caps its output, and is killed by its timeout or by Stop', async () => {
  assert.equal(await run('bash', { command: 'pwd' }), `Exit code 0.\n${fs.realpathSync(ws)}\n`);
  assert.match(await run('bash', { command: 'exit 3' }), /^Exit code 3\./);
  const long = await run('bash', { command: `head -c ${LIMITS.outputChars * 3} /dev/zero | tr '\\0' 'a'` });
  assert.ok(long.length < LIMITS.outputChars + 200, `capped to ${long.length}`);
  assert.match(long, /characters cut/);
  let started = Date.now();
  assert.match(await run('bash', { command: 'sleep 20; echo never', timeout_ms: 300 }), /Killed after 300 ms \(timeout\)/);
  assert.ok(Date.now() - started < 5_000);
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 200);
  started = Date.now();
  assert.match(await run('bash', { command: '(sleep 20 &) ; sleep 20', timeout_ms: 60_000 }, stop.signal), /Cancelled by the user/);
  assert.ok(Date.now() - started < 5_000);
});

test('git context names the branch, the status (at most 20 files) and the last commits', async () => {
  const repo = path.join(root, 'repo');
  fs.mkdirSync(repo);
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    });
  git('init', '-q', '-b', 'feature-x');
  fs.writeFileSync(path.join(repo, 'f.txt'), '1');
  git('add', '.');
  git('commit', '-q', '-m', 'first commit');
  for (let i = 0; i < 25; i++) fs.writeFileSync(path.join(repo, `new${i}.txt`), 'x');
  const context = await gitContext(repo);
  assert.match(context ?? '', /branch: feature-x/);
  assert.match(context ?? '', /first commit/);
  assert.match(context ?? '', /\(5 more files\)/);
  assert.equal(await gitContext(ws), undefined, 'no context outside a repository');
});

test('approvals summarize a write (its file, new or not, lines added and removed), a command, and carry the arguments', async () => {
  const body = Array.from({ length: 300 }, (_, i) => `line ${i}`);
  await run('write_file', { path: 'asked/long.txt', content: `${body.join('\n')}\n` });
  assert.deepEqual(asked.at(-1)?.change, { path: 'asked/long.txt', created: true, added: 300, removed: 0 });
  await run('edit_file', { path: 'asked/long.txt', old_text: 'line 150\nline 151\n', new_text: 'one\ntwo\nthree\n' });
  const edit = asked.at(-1)!;
  assert.equal(edit.summary, 'Edit asked/long.txt');
  assert.deepEqual(edit.change, { path: 'asked/long.txt', created: false, added: 3, removed: 2 });
  // The edit's diff shows three lines of the file on each side, under the hunk's line numbers.
  assert.equal(
    edit.detail,
    [
      '@@ -148,8 +148,9 @@',
      ' line 147',
      ' line 148',
      ' line 149',
      '-line 150',
      '-line 151',
      '+one',
      '+two',
      '+three',
      ' line 152',
      ' line 153',
      ' line 154',
    ].join('\n'),
  );
  assert.deepEqual(JSON.parse(edit.args ?? ''), { path: 'asked/long.txt', old_text: 'line 150\nline 151\n', new_text: 'one\ntwo\nthree\n' });
  await run('write_file', { path: 'asked/long.txt', content: 'short\n' });
  assert.deepEqual(asked.at(-1)?.change, { path: 'asked/long.txt', created: false, added: 1, removed: 301 });
  await run('bash', { command: 'true' });
  const command = asked.at(-1)!;
  assert.equal(command.tool, 'bash');
  assert.equal(command.summary, 'true');
  assert.equal(command.change, undefined);
  assert.deepEqual(JSON.parse(command.args ?? ''), { command: 'true' });
});
