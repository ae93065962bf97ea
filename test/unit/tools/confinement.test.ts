import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { silentLogger } from '../../../src/core/logger';
import { workspaceTools } from '../../../src/core/tools';
import { ApprovalGate, type ApprovalRequest } from '../../../src/core/tools/approvals';
import { Checkpoints } from '../../../src/core/tools/checkpoints';
import { BlobStore } from '../../../src/core/format/blobStore';
import { LIMITS } from '../../../src/core/tools/context';
import { ToolError, WorkspaceFs } from '../../../src/core/tools/workspaceFs';
import { tempDir } from '../../support/store';

// What the red team did to the file tools: swap a folder for a link between the check and the
// write, write through a hard link, read a FIFO or a huge file. Each must fail safe.
const root = tempDir('braid-confine-');
after(() => fs.rmSync(root, { recursive: true, force: true }));
const ws = path.join(root, 'ws');
const outside = path.join(root, 'outside');
fs.mkdirSync(path.join(ws, 'sub'), { recursive: true });
fs.mkdirSync(outside, { recursive: true });

function tools(options: { forbidden?: string[] } = {}): Map<string, AgentTool> {
  const checkpoints = new Checkpoints(new BlobStore(path.join(root, 'blobs')), async () => undefined);
  const list = workspaceTools({
    workspace: new WorkspaceFs([ws], options.forbidden),
    trusted: true,
    approvals: new ApprovalGate({ request: async () => 'allow' }),
    checkpoints,
    logger: silentLogger,
  });
  return new Map(list.map((t) => [t.name, t]));
}

async function run(name: string, args: object, options: { forbidden?: string[] } = {}): Promise<string> {
  const result = await tools(options).get(name)!.execute('call', args);
  return result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/**
 * Runs `fn` while another process swaps the folder ws/sub for a link to the outside folder and
 * back, as fast as it can (each swap is two renames, so ws/sub is almost never missing).
 */
async function whileSwapping<T>(fn: () => Promise<T>): Promise<T> {
  const script = `
    const fs = require('fs');
    const [sub, away, link, target] = process.argv.slice(1);
    for (;;) {
      try {
        fs.symlinkSync(target, link);
        fs.renameSync(sub, away); fs.renameSync(link, sub);
        fs.renameSync(sub, link); fs.renameSync(away, sub);
        fs.unlinkSync(link);
      } catch {}
    }`;
  const [sub, away, link] = ['sub', 'sub.away', 'sub.link'].map((n) => path.join(ws, n));
  const swapper = spawn(process.execPath, ['-e', script, sub!, away!, link!, outside], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return await fn();
  } finally {
    swapper.kill('SIGKILL');
    await new Promise((resolve) => swapper.once('exit', resolve));
    // Put ws/sub back as the one real folder, whatever moment the kill landed at.
    for (const p of [sub!, link!]) if (fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink()) fs.unlinkSync(p);
    if (fs.existsSync(away!)) {
      fs.mkdirSync(sub!, { recursive: true });
      for (const name of fs.readdirSync(away!)) fs.renameSync(path.join(away!, name), path.join(sub!, name));
      fs.rmdirSync(away!);
    }
  }
}

test('a folder swapped for a link to the outside between the check and the write never puts a file outside', async () => {
  const outcomes = { written: 0, refused: 0, raw: [] as string[] };
  await whileSwapping(async () => {
    for (let i = 0; i < 500; i++) {
      try {
        await run('write_file', { path: `sub/file-${i}.txt`, content: `write ${i}\n` });
        outcomes.written++;
      } catch (err) {
        if (err instanceof ToolError) outcomes.refused++;
        else outcomes.raw.push((err as Error).message);
      }
    }
  });
  assert.deepEqual(fs.readdirSync(outside), [], `files outside the workspace (${outcomes.written} written, ${outcomes.refused} refused)`);
  assert.deepEqual(outcomes.raw, [], 'every failure is a refusal the model can act on');
  // Every write reported done is inside, with its content.
  const inside = fs.readdirSync(path.join(ws, 'sub')).filter((n) => n.startsWith('file-'));
  assert.equal(inside.length, outcomes.written);
  for (const name of inside) assert.match(fs.readFileSync(path.join(ws, 'sub', name), 'utf8'), /^write \d+\n$/);
  assert.equal(fs.readdirSync(path.join(ws, 'sub')).filter((n) => n.includes('.braid-')).length, 0, 'no temp file left behind');
});

test('a folder swapped for a link while the approval prompt waits: the approved write is refused, nothing lands outside', async () => {
  fs.mkdirSync(path.join(ws, 'approved'));
  fs.writeFileSync(path.join(ws, 'approved', 'edit-me.txt'), 'inside\n');
  fs.writeFileSync(path.join(outside, 'edit-me.txt'), 'inside\n');
  const swapDuringPrompt = async () => {
    // What a command running in the background (or another program) does while the user reads the prompt.
    fs.renameSync(path.join(ws, 'approved'), path.join(ws, 'approved.away'));
    fs.symlinkSync(outside, path.join(ws, 'approved'));
    return 'allow' as const;
  };
  try {
    for (const [name, args] of [
      ['write_file', { path: 'approved/new.txt', content: 'x' }],
      ['edit_file', { path: 'approved/edit-me.txt', old_text: 'inside', new_text: 'pwned' }],
    ] as const) {
      const checkpoints = new Checkpoints(new BlobStore(path.join(root, 'blobs')), async () => undefined);
      const tool = workspaceTools({
        workspace: new WorkspaceFs([ws]),
        trusted: true,
        approvals: new ApprovalGate({ request: swapDuringPrompt }),
        checkpoints,
        logger: silentLogger,
      }).find((t) => t.name === name)!;
      await assert.rejects(tool.execute('c', args), (err: Error) => err instanceof ToolError && /changed while Braid was using it/.test(err.message), name);
      fs.unlinkSync(path.join(ws, 'approved'));
      fs.renameSync(path.join(ws, 'approved.away'), path.join(ws, 'approved'));
    }
    assert.deepEqual(fs.readdirSync(outside).sort(), ['edit-me.txt'], 'nothing was created outside');
    assert.equal(fs.readFileSync(path.join(outside, 'edit-me.txt'), 'utf8'), 'inside\n', 'nothing outside was changed');
  } finally {
    fs.rmSync(path.join(outside, 'edit-me.txt'), { force: true });
  }
});

test('reads during the same swap never return a file from outside', async () => {
  fs.writeFileSync(path.join(ws, 'sub', 'same-name.txt'), 'inside\n');
  fs.writeFileSync(path.join(outside, 'same-name.txt'), 'OUTSIDE SECRET\n');
  try {
    await whileSwapping(async () => {
      for (let i = 0; i < 300; i++) {
        const text = await run('read_file', { path: 'sub/same-name.txt' }).catch((err: Error) => (err instanceof ToolError ? '' : Promise.reject(err)));
        assert.doesNotMatch(text, /OUTSIDE SECRET/, `read ${i} returned the outside file`);
      }
    });
  } finally {
    fs.rmSync(path.join(outside, 'same-name.txt'));
  }
});

test('a hard link to a file outside: edits replace the link, the outside file keeps its content; reads say it is a hard link', async () => {
  const target = path.join(outside, 'linked.txt');
  fs.writeFileSync(target, 'outside content\n');
  fs.linkSync(target, path.join(ws, 'hard.txt'));
  try {
    assert.match(await run('read_file', { path: 'hard.txt' }), /hard link: 2 names share this file/);
    await run('edit_file', { path: 'hard.txt', old_text: 'outside', new_text: 'edited' });
    assert.equal(fs.readFileSync(target, 'utf8'), 'outside content\n', 'the outside file is untouched');
    assert.equal(fs.readFileSync(path.join(ws, 'hard.txt'), 'utf8'), 'edited content\n');
    assert.equal(fs.statSync(path.join(ws, 'hard.txt')).nlink, 1);
    fs.linkSync(target, path.join(ws, 'hard2.txt'));
    await run('write_file', { path: 'hard2.txt', content: 'replaced\n' });
    assert.equal(fs.readFileSync(target, 'utf8'), 'outside content\n');
  } finally {
    fs.rmSync(target);
  }
});

test('a replaced file keeps its mode (an executable stays executable)', async () => {
  const script = path.join(ws, 'run.sh');
  fs.writeFileSync(script, '#!/bin/sh\necho one\n', { mode: 0o755 });
  await run('edit_file', { path: 'run.sh', old_text: 'one', new_text: 'two' });
  assert.equal(fs.statSync(script).mode & 0o777, 0o755);
});

test('a FIFO is refused at once by read_file, write_file and edit_file, and skipped by grep', async () => {
  execFileSync('mkfifo', [path.join(ws, 'pipe')]);
  try {
    for (const [name, args] of [
      ['read_file', { path: 'pipe' }],
      ['write_file', { path: 'pipe', content: 'x' }],
      ['edit_file', { path: 'pipe', old_text: 'a', new_text: 'b' }],
    ] as const) {
      await assert.rejects(run(name, args), (err: Error) => err instanceof ToolError && /named pipe \(FIFO\), not a regular file/.test(err.message), name);
    }
    assert.equal(await run('grep', { pattern: 'x', path: '.' }).then(() => 'done'), 'done');
  } finally {
    fs.rmSync(path.join(ws, 'pipe'));
  }
});

test('a huge file is read by range without loading it: binary from its first bytes, text from where it is asked', async () => {
  const sparse = path.join(ws, 'huge.bin');
  const text = path.join(ws, 'huge.txt');
  const fd = fs.openSync(sparse, 'w');
  fs.ftruncateSync(fd, 2 * 1024 ** 3); // 2 GiB of zeros, sparse on disk
  fs.closeSync(fd);
  const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}`).join('\n');
  fs.writeFileSync(text, `${lines}\n`);
  fs.truncateSync(text, 600 * 1024 ** 2); // 600 MiB: the lines, then zeros
  try {
    const rss = process.memoryUsage().rss;
    assert.match(await run('read_file', { path: 'huge.bin' }), /binary file \(2048\.0 MiB\)/);
    assert.equal(await run('read_file', { path: 'huge.txt', limit: 1 }), '     1\tline 1\n[the file goes on (600.0 MiB in all); read on with offset=2]');
    assert.match(await run('read_file', { path: 'huge.txt', offset: 19_999, limit: 2 }), /^ 19999\tline 19999\n 20000\tline 20000\n/);
    const grown = (process.memoryUsage().rss - rss) / 1024 ** 2;
    assert.ok(grown < 200, `reading grew memory by ${grown.toFixed(0)} MiB`);
    await assert.rejects(run('edit_file', { path: 'huge.txt', old_text: 'line 1', new_text: 'x' }), /600\.0 MiB, too large/);
  } finally {
    fs.rmSync(sparse);
    fs.rmSync(text);
  }
});

test('a catastrophic regular expression stops at the deadline, and Stop ends it at once', async () => {
  fs.writeFileSync(path.join(ws, 'sentence.txt'), 'This is an ordinary sentence that goes on for quite a while, like most sentences do!\n');
  const deadline = LIMITS.searchTimeoutMs;
  LIMITS.searchTimeoutMs = 1500;
  try {
    const result = await run('grep', { pattern: '^(\\w+\\s?)*$', path: 'sentence.txt' });
    assert.match(result, /No matches\.\n\[stopped after 1\.5 s: the pattern may backtrack/);
  } finally {
    LIMITS.searchTimeoutMs = deadline;
  }
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 300);
  const started = Date.now();
  await assert.rejects(tools().get('grep')!.execute('call', { pattern: '^(\\w+\\s?)*$', path: 'sentence.txt' }, stop.signal), /cancelled/);
  assert.ok(Date.now() - started < deadline, 'Stop ended the search before its deadline');
});

test('a hostile .gitignore pattern that backtracks without end cannot hang glob or grep', async () => {
  const hostile = path.join(ws, 'hostile');
  fs.mkdirSync(path.join(hostile, ...Array(40).fill('a')), { recursive: true });
  fs.writeFileSync(path.join(hostile, ...Array(40).fill('a'), 'c.txt'), 'needle\n');
  fs.writeFileSync(path.join(hostile, '.gitignore'), `${Array(12).fill('**/a').join('/')}/**/b\n`);
  const deadline = LIMITS.searchTimeoutMs;
  LIMITS.searchTimeoutMs = 1500;
  try {
    assert.match(await run('glob', { pattern: '**/*.txt', path: 'hostile' }), /stopped after 1\.5 s/);
    assert.match(await run('grep', { pattern: 'needle', path: 'hostile' }), /stopped after 1\.5 s/);
  } finally {
    LIMITS.searchTimeoutMs = deadline;
    fs.rmSync(hostile, { recursive: true });
  }
});

test("Braid's data folder inside the workspace is never a tool target", async () => {
  const data = path.join(ws, '.braid-data');
  fs.mkdirSync(path.join(data, 'sessions'), { recursive: true });
  fs.writeFileSync(path.join(data, 'sessions', 'state.json'), '{}');
  for (const [name, args] of [
    ['read_file', { path: '.braid-data/sessions/state.json' }],
    ['write_file', { path: '.braid-data/rewind.pending.json', content: '{}' }],
    ['list_dir', { path: '.braid-data' }],
    ['grep', { pattern: 'x', path: '.braid-data' }],
  ] as const) {
    await assert.rejects(run(name, args, { forbidden: [data] }), /inside Braid's own data folder/, name);
  }
  assert.equal(fs.existsSync(path.join(data, 'rewind.pending.json')), false);
  fs.rmSync(data, { recursive: true });
});

test('writes that can make programs run later (.git, VS Code tasks and settings, .envrc) need the approval a command needs', async () => {
  const asked: ApprovalRequest[] = [];
  let answer: 'allow' | 'deny' = 'deny';
  const make = () => {
    const checkpoints = new Checkpoints(new BlobStore(path.join(root, 'blobs')), async () => undefined);
    const gate = new ApprovalGate({ request: async (r) => (asked.push(r), answer) }, { writes: 'allow', shell: 'ask' });
    return new Map(
      workspaceTools({ workspace: new WorkspaceFs([ws]), trusted: true, approvals: gate, checkpoints, logger: silentLogger }).map((t) => [t.name, t]),
    );
  };
  await make().get('write_file')!.execute('c', { path: 'plain.txt', content: 'x' });
  assert.equal(asked.length, 0, 'an ordinary write is allowed by braid.approval.writes');
  for (const risky of [
    '.git/hooks/pre-commit',
    '.git/config',
    '.vscode/tasks.json',
    '.vscode/settings.json',
    'sub/.envrc',
    '.GIT/hooks/post-checkout',
    'app.code-workspace',
  ]) {
    await assert.rejects(make().get('write_file')!.execute('c', { path: risky, content: '#!/bin/sh\ntouch pwned\n' }), /denied/, risky);
    assert.equal(fs.existsSync(path.join(ws, risky)), false, `${risky} was not written`);
    assert.ok(asked.at(-1)?.commandRisk, `${risky}: the prompt says why`);
  }
  answer = 'allow';
  await make().get('write_file')!.execute('c', { path: '.vscode/settings.json', content: '{}' });
  assert.match(asked.at(-1)!.commandRisk!, /VS Code/);
  assert.equal(fs.readFileSync(path.join(ws, '.vscode/settings.json'), 'utf8'), '{}');
});

test('a command that leaves a FIFO where a tracked file was does not hang the checkpoint after it', async () => {
  fs.writeFileSync(path.join(ws, 'tracked.txt'), 'tracked\n');
  try {
    const result = await run('bash', { command: 'rm tracked.txt && mkfifo tracked.txt && echo swapped' });
    assert.match(result, /^Exit code 0\.\nswapped/);
  } finally {
    fs.rmSync(path.join(ws, 'tracked.txt'), { force: true });
  }
});
