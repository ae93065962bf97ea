import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../../../src/cli/run';
import { readWireLog } from '../../../src/core/wire/wireReader';
import type { MessageRecord } from '../../../src/core/wire/records';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { ScriptedModelServer } from '../../support/modelServer';
import { sessionIdsIn, tempDir, wasmPath } from '../../support/store';
import { readSessionFolder } from '../../../src/core/format/summary';

// `braid exec` against the scripted OpenAI-compatible server over HTTP, twice with --continue.
const server = new ScriptedModelServer();
const root = tempDir('braid-exec-');
const workspace = path.join(root, 'project');
let env: NodeJS.ProcessEnv = {};
before(async () => {
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'README.md'), '# Project\nIt sorts numbers.\n');
  env = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start() };
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function braid(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', path.join(root, 'store'), '--workspace', workspace, ...args], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env,
    wasmPath,
  });
  return { code, out, err };
}

test('exec streams an answer, shows tool calls as lines, and says how to continue', async () => {
  server.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"README.md"}' }], usage: { prompt: 100, completion: 10, cached: 40 } },
    { kind: 'text', chunks: ['The project ', 'sorts numbers.'], usage: { prompt: 150, completion: 6, cached: 100 } },
  );
  const r = await braid(['exec', 'What does this project do?']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^\[read_file\] \{"path":"README.md"\}\nThe project sorts numbers\.\n$/);
  assert.match(r.err, /continue with: braid exec --session [0-9A-Z]{6,}/);
  // The tool result went back to the model in the second request.
  assert.match(JSON.stringify(server.requests.at(-1)!.body.messages), /It sorts numbers/);
});

test('exec --continue adds a turn to the same session; the log and state.json say so', async () => {
  server.enqueue({ kind: 'text', chunks: ['Yes, ascending.'], usage: { prompt: 200, completion: 3, cached: 150 } });
  const r = await braid(['exec', '--continue', 'Ascending?']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'Yes, ascending.\n');
  const sessions = sessionIdsIn(path.join(root, 'store', 'sessions', workspaceKey(workspace)));
  assert.equal(sessions.length, 1);
  const dir = path.join(root, 'store', 'sessions', workspaceKey(workspace), sessions[0]!);
  const { records } = readWireLog(path.join(dir, 'agents', 'main', 'wire.jsonl'));
  const turns = records.filter((x) => x.t === 'turn_end') as Array<{ turn: number; outcome: string }>;
  assert.deepEqual(
    turns.map((t) => [t.turn, t.outcome]),
    [
      [1, 'completed'],
      [2, 'completed'],
    ],
  );
  const usage = records.filter((x) => x.t === 'usage') as Array<{ input: number; cacheRead: number; output: number; model: string; stopReason: string }>;
  assert.deepEqual(
    usage.map((u) => [u.input, u.cacheRead, u.output]),
    [
      [60, 40, 10],
      [50, 100, 6],
      [50, 150, 3],
    ],
  );
  assert.equal(usage[0]!.stopReason, 'toolUse');
  const roles = (records.filter((x) => x.t === 'message') as MessageRecord[]).map((m) => m.message.role);
  assert.deepEqual(roles, ['user', 'assistant', 'toolResult', 'assistant', 'user', 'assistant']);
  const { state } = readSessionFolder(dir).summary;
  assert.equal(state.turnCount, 2);
  assert.equal(state.status, 'idle');
  assert.equal(state.title, 'What does this project do?');
  assert.deepEqual([state.usage.input, state.usage.cacheRead, state.usage.output], [160, 290, 19]);
  assert.deepEqual(state.model, { provider: 'openai-compatible', id: 'scripted-model', thinking: 'off' });
  // The second request carried the whole first turn.
  assert.match(JSON.stringify(server.requests.at(-1)!.body.messages), /What does this project do\?[\s\S]*The project sorts numbers[\s\S]*Ascending\?/);
});

test('exec --session takes a shortened id, as every command that takes a session id does', async () => {
  const id = sessionIdsIn(path.join(root, 'store', 'sessions', workspaceKey(workspace)))[0]!;
  server.enqueue({ kind: 'text', chunks: ['Still ascending.'] });
  const r = await braid(['exec', '--session', id.slice(4, 20).toLowerCase(), 'Still?']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'Still ascending.\n');
  assert.match(r.err, new RegExp(`session ${id.slice(-6)}; continue with`));
  assert.deepEqual(sessionIdsIn(path.join(root, 'store', 'sessions', workspaceKey(workspace))), [id]);
});

test('exec refuses --continue with --session (exit 2) and reports model failures in one line (exit 1)', async () => {
  assert.equal((await braid(['exec', '--continue', '--session', 'ses_x', 'hi'])).code, 2);
  assert.equal((await braid(['exec'])).code, 2);
  server.enqueue(
    { kind: 'httpError', status: 500, message: 'the model fell over' },
    { kind: 'httpError', status: 500, message: 'the model fell over' },
    { kind: 'httpError', status: 500, message: 'the model fell over' },
  );
  const failed = await braid(['exec', '--continue', 'break please']);
  assert.equal(failed.code, 1);
  assert.match(failed.err, /the turn failed: .*the model fell over/);
  const noModel = await runCli(['--data-dir', path.join(root, 'store'), 'exec', 'hi'], {
    stdout: { write: () => true },
    stderr: { write: () => true },
    env: {},
    wasmPath,
  });
  assert.equal(noModel, 1);
});

test('writes are denied without --yes and allowed with it', async () => {
  const call = { kind: 'toolCalls' as const, calls: [{ id: 'w1', name: 'write_file', arguments: '{"path":"out.txt","content":"hello"}' }] };
  server.enqueue(call, { kind: 'text', chunks: ['Could not write.'] });
  const denied = await braid(['exec', 'write out.txt']);
  assert.equal(denied.code, 0);
  assert.match(denied.err, /denied; run with --yes/);
  assert.equal(fs.existsSync(path.join(workspace, 'out.txt')), false);
  server.enqueue(call, { kind: 'text', chunks: ['Written.'] });
  const allowed = await braid(['exec', '--yes', 'write out.txt']);
  assert.equal(allowed.code, 0, allowed.err);
  assert.equal(fs.readFileSync(path.join(workspace, 'out.txt'), 'utf8'), 'hello');
});

test('an API key a provider echoes in its error never reaches the log, state.json or the output', async () => {
  const key = `sk-braid-canary-${Date.now()}`;
  const withKey = { ...env, BRAID_API_KEY: key };
  server.enqueue({ kind: 'httpError', status: 401, message: `Incorrect API key provided: ${key}. Find your key in your account settings.` });
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', path.join(root, 'store-key'), '--workspace', workspace, 'exec', 'Hello?'], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env: withKey,
    wasmPath,
  });
  assert.equal(code, 1);
  assert.equal(server.requests.at(-1)!.headers.authorization, `Bearer ${key}`, 'the key was sent');
  assert.match(err, /Incorrect API key provided: \[API key removed\]/);
  const files: string[] = [];
  const walk = (dir: string) =>
    fs.readdirSync(dir, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : files.push(path.join(dir, e.name))));
  walk(path.join(root, 'store-key'));
  assert.ok(
    files.some((f) => f.endsWith('wire.jsonl')),
    'the failed turn was logged',
  );
  for (const file of files) assert.equal(fs.readFileSync(file).includes(key), false, `${path.relative(root, file)} holds the key`);
  assert.equal(`${out}${err}`.includes(key), false);
});

test('an API key a provider echoes inside a subagent reaches neither the data folder nor stdout or stderr', async () => {
  const key = `sk-braid-canary-sub-${Date.now()}`;
  // The subagent's requests fail quoting the Authorization header; the parent asks for one subagent, then answers.
  const echoing = new ScriptedModelServer((request) => {
    const messages = request.body.messages ?? [];
    if (JSON.stringify(messages[0]).includes('You are a subagent of Braid'))
      return { kind: 'httpError', status: 401, message: `Incorrect API key provided: ${request.headers.authorization}` };
    if (messages.some((m) => m.role === 'tool')) return { kind: 'text', chunks: ['The subagent could not run.'] };
    return { kind: 'toolCalls', calls: [{ id: 'task1', name: 'task', arguments: '{"description":"Look around","prompt":"List the files."}' }] };
  });
  const store = path.join(root, 'store-subagent-key');
  let out = '';
  let err = '';
  try {
    const withKey = { ...env, BRAID_BASE_URL: await echoing.start(), BRAID_API_KEY: key };
    const code = await runCli(['--data-dir', store, '--workspace', workspace, '--verbose', 'exec', 'Delegate a look around'], {
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: (t: string) => (err += t) },
      env: withKey,
      wasmPath,
    });
    assert.equal(code, 0, err);
    assert.ok(
      echoing.requests.some((r) => r.headers.authorization === `Bearer ${key}`),
      'the key was sent',
    );
    assert.match(out, /\[task failed\] .*Incorrect API key provided: Bearer \[API key removed\]/);
  } finally {
    await echoing.close();
  }
  const files: string[] = [];
  const walk = (dir: string) =>
    fs.readdirSync(dir, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : files.push(path.join(dir, e.name))));
  walk(store);
  assert.ok(files.filter((f) => f.endsWith('wire.jsonl')).length >= 2, "the subagent's log was written");
  for (const file of files) assert.equal(fs.readFileSync(file).includes(key), false, `${path.relative(root, file)} holds the key`);
  assert.equal(out.includes(key), false, 'stdout holds the key');
  assert.equal(err.includes(key), false, 'stderr holds the key');
});
