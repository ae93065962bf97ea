import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { TurnBeginRecord, TurnEndRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { braidProcess, cliWithScriptedModel } from '../../support/cli';
import { sessionIdsIn } from '../../support/store';

// `braid exec --until-done` as a real process against the scripted model: why the run stopped is
// said on stderr, and the exit code tells it.
const { root, workspace, server, env } = cliWithScriptedModel('braid-exec-goal-');

const text = (t: string) => ({ kind: 'text' as const, chunks: [t], usage: { prompt: 100, completion: 10 } });

function turnsIn(store: string): { begins: TurnBeginRecord[]; ends: TurnEndRecord[] } {
  const folder = path.join(store, 'sessions', workspaceKey(workspace));
  const ids = sessionIdsIn(folder);
  assert.equal(ids.length, 1, `sessions: ${ids.join(', ')}`);
  const { records } = readWireLog(path.join(folder, ids[0]!, 'agents', 'main', 'wire.jsonl'));
  return { begins: records.filter((r) => r.t === 'turn_begin') as TurnBeginRecord[], ends: records.filter((r) => r.t === 'turn_end') as TurnEndRecord[] };
}

test('exec --until-done runs automatic turns until the model writes GOAL DONE: exit 0, said on stderr', async () => {
  const store = path.join(root, 'store-done');
  server.enqueue(text('Step one.'), text('Step two.\nGOAL DONE'));
  const r = await braidProcess(['--data-dir', store, '--workspace', workspace, 'exec', '--until-done', 'finish the steps'], env()).exited();
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /Step one\.[\s\S]*Step two\.\nGOAL DONE/);
  assert.match(r.err, /braid: the goal is not done yet; automatic turn 2 of at most 10/);
  assert.match(r.err, /braid: Goal done: the model says it is met \(2 turns, 220 tokens\)/);
  const { begins, ends } = turnsIn(store);
  assert.deepEqual(
    begins.map((b) => b.auto),
    [undefined, 'goal'],
  );
  assert.deepEqual(
    ends.map((e) => e.outcome),
    ['completed', 'completed'],
  );
});

test('exec --until-done --max-turns 2: the budget is spent, exit 3, said on stderr', async () => {
  const store = path.join(root, 'store-budget');
  server.enqueue(text('Working.'), text('Still working.'));
  const r = await braidProcess(['--data-dir', store, '--workspace', workspace, 'exec', '--until-done', '--max-turns', '2', 'never finish'], env()).exited();
  assert.equal(r.code, 3, r.err);
  assert.match(r.err, /braid: Goal not done: its budget of 2 turns is spent \(2 turns, 220 tokens\)/);
  assert.equal(turnsIn(store).ends.length, 2);
  assert.equal(server.pending, 0);
});

test('exec --until-done: a failed turn stops the run, exit 1', async () => {
  const store = path.join(root, 'store-failed');
  server.enqueue(text('Working.'), { kind: 'httpError', status: 400, message: 'scripted refusal' });
  const r = await braidProcess(['--data-dir', store, '--workspace', workspace, 'exec', '--until-done', 'fail on the way'], env()).exited();
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /braid: Goal stopped: a turn failed .*scripted refusal/);
  assert.deepEqual(
    turnsIn(store).ends.map((e) => e.outcome),
    ['completed', 'failed'],
  );
});

test('SIGINT during an automatic turn stops the run: exit 130, the turns before are saved', async () => {
  const store = path.join(root, 'store-stopped');
  server.enqueue(text('Working.'), { kind: 'stall', chunks: ['Second turn streaming'] });
  const braid = braidProcess(['--data-dir', store, '--workspace', workspace, 'exec', '--until-done', 'stop me'], env());
  await braid.printed('Second turn streaming');
  braid.kill('SIGINT');
  const r = await braid.exited();
  assert.equal(r.code, 130, r.err);
  assert.match(r.err, /braid: Goal stopped by the user \(2 turns/);
  assert.deepEqual(
    turnsIn(store).ends.map((e) => e.outcome),
    ['completed', 'cancelled'],
  );
});

test('--max-turns without --until-done, or not a number, is a usage error (exit 2)', async () => {
  const store = path.join(root, 'store-usage');
  const without = await braidProcess(['--data-dir', store, '--workspace', workspace, 'exec', '--max-turns', '3', 'hi'], env()).exited();
  assert.equal(without.code, 2);
  assert.match(without.err, /--max-turns goes with --until-done/);
  const bad = await braidProcess(['--data-dir', store, '--workspace', workspace, 'exec', '--until-done', '--max-tokens', 'lots', 'hi'], env()).exited();
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--max-tokens must be a whole number/);
});
