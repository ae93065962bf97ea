import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { runCli } from '../../../src/cli/run';
import { runDoctor } from '../../../src/core/store/doctor';
import type { MessageRecord, TurnEndRecord, WireRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { spawnBraid } from '../../support/children';
import { ScriptedModelServer } from '../../support/modelServer';
import { addTurn, assistantMessage, openStore, tempDir, userMessage, wasmPath } from '../../support/store';
import { readSessionFolder } from '../../../src/core/format/summary';

// A writer that dies without letting go of its lease: the next process that opens the session
// takes the lease over at once and runs crash recovery; the doctor reports and repairs what is left.
const root = tempDir('braid-lease-recovery-');
const data = path.join(root, 'store');
const workspace = path.join(root, 'project');
let server: ScriptedModelServer;
let env: NodeJS.ProcessEnv = {};
before(() => {
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'README.md'), '# Project\n');
});
// Each test has its own model server: a reply one test left queued never reaches another.
beforeEach(async () => {
  server = new ScriptedModelServer();
  env = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start() };
});
afterEach(() => server.close());
after(() => fs.rmSync(root, { recursive: true, force: true }));

async function braid(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', data, '--workspace', workspace, ...args], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env,
    wasmPath,
  });
  return { code, out, err };
}

function mainLog(id: string): WireRecord[] {
  return readWireLog(path.join(data, 'sessions', workspaceKey(workspace), id, 'agents', 'main', 'wire.jsonl')).records;
}

test('a CLI writer killed with SIGKILL mid-turn: exec --continue runs at once, the killed turn ends interrupted with its tool call closed', async () => {
  server.enqueue({ kind: 'text', chunks: ['First answer.'] });
  assert.equal((await braid(['exec', 'First prompt'])).code, 0);
  // The second turn runs a slow command; the CLI is killed while it runs.
  server.enqueue({ kind: 'toolCalls', calls: [{ id: 'call_sleep', name: 'bash', arguments: '{"command":"sleep 2"}' }] });
  const killed = spawnBraid(['--data-dir', data, '--workspace', workspace, 'exec', '--yes', '--continue', 'Second prompt'], env);
  await killed.printed('[bash]');
  killed.child.kill('SIGKILL');
  assert.equal((await killed.exit).signal, 'SIGKILL');
  const id = (JSON.parse((await braid(['list', '--json'])).out) as Array<{ id: string }>)[0]!.id;
  assert.ok(fs.existsSync(path.join(data, 'sessions', workspaceKey(workspace), id, 'writer.lock')), 'the killed CLI left its lease behind');

  server.enqueue({ kind: 'text', chunks: ['Third answer.'] });
  const next = await braid(['exec', '--continue', 'Third prompt']);
  assert.equal(next.code, 0, next.err);
  assert.equal(next.out, 'Third answer.\n');

  const records = mainLog(id);
  const ends = (records.filter((r) => r.t === 'turn_end') as TurnEndRecord[]).map((r) => [r.turn, r.outcome]);
  assert.deepEqual(ends, [
    [1, 'completed'],
    [2, 'interrupted'],
    [3, 'completed'],
  ]);
  const closing = (records.filter((r) => r.t === 'message') as MessageRecord[]).find(
    (m) => m.message.role === 'toolResult' && m.message.toolCallId === 'call_sleep',
  );
  assert.ok(closing, 'the killed turn has its tool call closed');
  assert.equal(closing.turn, 2);
  const rows = JSON.parse((await braid(['list', '--json'])).out) as Array<{ id: string; status: string; turnCount: number }>;
  assert.deepEqual(
    rows.map((r) => [r.id, r.status, r.turnCount]),
    [[id, 'idle', 3]],
  );
  assert.equal(fs.existsSync(path.join(data, 'sessions', workspaceKey(workspace), id, 'writer.lock')), false, 'the lease was given back');
});

test('doctor reports a dead lease and a session left running by a killed writer; --fix ends the turn and frees the session', async () => {
  const store = await openStore(data);
  const session = await store.create({ workspaceDir: workspace });
  const writer = await store.openWriter(session.id);
  await addTurn(writer, 'a whole turn', 'done');
  await writer.close();
  // A child process takes the lease, begins a turn and is killed in it.
  const dir = store.locate(session.id);
  await store.close();
  const killed = spawnBraid(['--data-dir', data, '--workspace', workspace, 'exec', '--yes', '--session', session.id, 'Run something slow'], env);
  server.enqueue({ kind: 'stall', chunks: ['Thinking'] });
  await killed.printed('Thinking');
  killed.child.kill('SIGKILL');
  await killed.exit;
  assert.equal(readSessionFolder(dir).summary.state.status, 'running');

  const check = await openStore(data);
  const found = (await runDoctor(check, { fix: false })).findings.filter((f) => f.where.includes(session.id));
  assert.ok(
    found.some((f) => /writer\.lock names process \d+ .*gone/.test(f.message) && f.fixable),
    JSON.stringify(found),
  );
  assert.ok(
    found.some((f) => /running.*no process is writing/.test(f.message) && f.fixable),
    JSON.stringify(found),
  );
  const fixed = (await runDoctor(check, { fix: true })).findings.filter((f) => f.where.includes(session.id));
  assert.ok(
    fixed.every((f) => !f.fixable || f.fixed),
    JSON.stringify(fixed),
  );
  assert.deepEqual(
    (await runDoctor(check, { fix: false })).findings.filter((f) => f.where.includes(session.id)),
    [],
  );
  await check.close();
  assert.equal(fs.existsSync(path.join(dir, 'writer.lock')), false);
  assert.equal(readSessionFolder(dir).summary.state.status, 'interrupted');
  const ends = (mainLog(session.id).filter((r) => r.t === 'turn_end') as TurnEndRecord[]).map((r) => [r.turn, r.outcome]);
  assert.deepEqual(ends, [
    [1, 'completed'],
    [2, 'interrupted'],
  ]);
});

test('a version 1 state.json that says running while the log says the turn ended reads as the log says; the doctor finds nothing', async () => {
  const store = await openStore(data);
  const session = await store.create({ workspaceDir: workspace });
  const writer = await store.openWriter(session.id);
  const turn = await writer.beginTurn('p-1', null);
  await writer.appendMessage(userMessage('a prompt'));
  await writer.appendMessage(assistantMessage('an answer'));
  // What an earlier Braid killed right after the fsynced turn_end left: the log says ended, state.json says running.
  await writer.append({ t: 'turn_end', turn, outcome: 'completed' }, true);
  await writer.close();
  const dir = store.locate(session.id);
  const v1 = {
    ...JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8')),
    v: 1,
    status: 'running',
    turnCount: 0,
    updatedAt: 1,
    usage: {},
    agents: [],
    model: null,
    error: null,
  };
  fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify(v1));
  store.index.rereadFolder(dir);
  assert.deepEqual(
    (await runDoctor(store, { fix: false })).findings.filter((f) => f.where.includes(session.id)),
    [],
  );
  const { state } = readSessionFolder(dir).summary;
  assert.deepEqual([state.status, state.turnCount], ['idle', 1]);
  assert.equal(store.index.get(session.id)?.status, 'idle');
  await store.close();
});
