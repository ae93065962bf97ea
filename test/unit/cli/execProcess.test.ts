import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TurnEndRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { braidIn, braidProcess, cliWithScriptedModel, filesNamed } from '../../support/cli';
import { sessionIdsIn } from '../../support/store';
import { readSessionFolder } from '../../../src/core/format/summary';

// The CLI as a real process: a stop signal cancels the turn cleanly, a full disk after the turn
// is saved loses nothing and says so, and an unusable data folder is a one-line error.
const { root, workspace, server, env } = cliWithScriptedModel('braid-exec-process-');

function onlySession(store: string): { dir: string; turnEnds: TurnEndRecord[] } {
  const folder = path.join(store, 'sessions', workspaceKey(workspace));
  const ids = sessionIdsIn(folder);
  assert.equal(ids.length, 1, `sessions: ${ids.join(', ')}`);
  const dir = path.join(folder, ids[0]!);
  const turnEnds = readWireLog(path.join(dir, 'agents', 'main', 'wire.jsonl')).records.filter((r) => r.t === 'turn_end') as TurnEndRecord[];
  return { dir, turnEnds };
}

for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const) {
  test(`${signal} while the model streams: the turn ends cancelled, the lease is given back, exit ${code}`, async () => {
    const store = path.join(root, `store-${signal}`);
    server.enqueue({ kind: 'stall', chunks: ['Working on it'] });
    const braid = braidProcess(['--data-dir', store, '--workspace', workspace, 'exec', 'a long task'], env());
    await braid.printed('Working on it');
    braid.kill(signal);
    const r = await braid.exited();
    assert.equal(r.code, code, `${r.signal ?? ''} ${r.err}`);
    assert.match(r.err, new RegExp(`braid: stopped by ${signal}: the turn was cancelled; what it did so far is saved`));
    const { dir, turnEnds } = onlySession(store);
    assert.deepEqual(
      turnEnds.map((t) => [t.turn, t.outcome]),
      [[1, 'cancelled']],
    );
    const { state } = readSessionFolder(dir).summary;
    assert.deepEqual([state.status, state.turnCount], ['aborted', 1]);
    assert.deepEqual(filesNamed(store, 'writer.lock'), []);
  });
}

test('SIGTERM while the prompt hook runs: no turn begins, the new session is not kept, exit 143', async () => {
  const store = path.join(root, 'store-hook');
  const mark = path.join(root, 'hook-started');
  const requests = server.requests.length;
  const braid = braidProcess(['--data-dir', store, '--workspace', workspace, 'exec', 'slow hook'], {
    ...env(),
    BRAID_PROMPT_HOOK: `cat >/dev/null; touch "${mark}"; sleep 1; exit 0`,
  });
  for (let i = 0; i < 600 && !fs.existsSync(mark); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(fs.existsSync(mark), 'the hook ran');
  braid.kill('SIGTERM');
  const r = await braid.exited();
  assert.equal(r.code, 143, `${r.signal ?? ''} ${r.err}`);
  assert.match(r.err, /stopped by SIGTERM before the prompt ran; nothing was saved/);
  assert.deepEqual(sessionIdsIn(path.join(store, 'sessions', workspaceKey(workspace))), []);
  assert.equal(server.requests.length, requests, 'no model call');
});

test('a full disk when the index is saved after the turn: exit 0, the turn is saved and the message says the index will catch up', async () => {
  const store = path.join(root, 'store-full');
  // Every write to an index file fails as on a full disk (BRAID_FAULT_INDEX_WRITES): the log's do not.
  server.enqueue({ kind: 'text', chunks: ['Saved answer.'] });
  const r = await braidProcess(['--data-dir', store, '--workspace', workspace, 'exec', 'remember this'], {
    ...env(),
    BRAID_FAULT_INDEX_WRITES: 'ENOSPC',
  }).exited();
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'Saved answer.\n');
  assert.match(r.err, /braid: the turn is saved; the index will catch up \(cannot write \S+index\.sqlite: no space left on device \(ENOSPC\)\)/);
  const { dir, turnEnds } = onlySession(store);
  assert.deepEqual(
    turnEnds.map((t) => t.outcome),
    ['completed'],
  );
  assert.equal(readSessionFolder(dir).summary.state.turnCount, 1);
  // With room again, the index catches up.
  const listed = JSON.parse((await braidIn(['--data-dir', store, '--workspace', workspace, 'list', '--json'])).out) as Array<{ turnCount: number }>;
  assert.deepEqual(
    listed.map((row) => row.turnCount),
    [1],
  );
});

test('a data folder where folders cannot be made (/proc) is a one-line error, not a hang', { skip: !fs.existsSync('/proc/self') }, async () => {
  // exec is what creates a data folder (a command that only reads creates none).
  const r = await braidProcess(['--data-dir', '/proc', 'exec', 'hello'], env()).exited(20_000);
  assert.equal(r.code, 1);
  assert.match(
    r.err,
    /^braid: cannot use \/proc as the data folder: creating \/proc\/sessions failed: .*; pick a folder you can write with --data-dir or BRAID_HOME\n$/,
  );
});
