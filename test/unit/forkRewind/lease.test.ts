import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { LogFollower } from '../../../src/core/store/logFollower';
import type { WireRecord } from '../../../src/core/wire/records';
import { openStore, repoRoot, tempDir, wasmPath } from '../../support/store';

// Two processes on one session: the child holds the writer lease and appends; this process cannot
// write while the child lives, follows the log live, and takes the lease over once the child is gone.
const root = tempDir('braid-lease-');
after(() => fs.rmSync(root, { recursive: true, force: true }));
const worker = path.join(repoRoot, 'out', 'test', 'workers', 'appendWorker.cjs');

function startWorker(
  sessionId: string,
  pauseMs: number,
  turns: number,
): { child: ChildProcess; ended: string[]; ready: Promise<void>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [worker, root, sessionId, wasmPath, String(pauseMs), String(turns)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const ended: string[] = [];
  let out = '';
  const ready = new Promise<void>((resolve) =>
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      ended.splice(0, ended.length, ...out.split('\n').filter((l) => l.startsWith('ended ')));
      if (out.includes('ready')) resolve();
    }),
  );
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ended, ready, exit };
}

test('one process writes; the other cannot, follows live, and takes over at once when the writer dies', async () => {
  const store = await openStore(root);
  const session = await store.create({ workspaceDir: '/lease' });
  const run = startWorker(session.id, 150, 6);
  await run.ready;
  await assert.rejects(store.openWriter(session.id), /being written by process \d+/, "a live writer's lease is never taken over");

  const seen: WireRecord[] = [];
  const follower = new LogFollower(store.layout.agentLog(store.locate(session.id)), (records) => seen.push(...records), 0).start();
  await run.exit;
  follower.check();
  follower.stop();
  assert.equal(seen.filter((r) => r.t === 'turn_end').length, 6, 'every turn arrived while following');
  assert.equal(run.ended.length, 6);

  // The child released its lease when it closed: this process may write now.
  const writer = await store.openWriter(session.id);
  await writer.close();

  // A writer killed mid-turn leaves a lease whose process is gone: recovery at start takes it over
  // at once and ends the open turn; it gives the lease back, so the next writer opens at once too.
  const crash = startWorker(session.id, 0, 100_000);
  await crash.ready;
  while (crash.ended.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
  crash.child.kill('SIGKILL');
  await crash.exit;
  assert.ok(fs.existsSync(path.join(store.locate(session.id), 'writer.lock')), 'the killed writer left its lease');
  const logHadOpenTurn = store.history(session.id).openTurn !== null;
  const recovered = await store.recoverInterrupted('/lease');
  assert.deepEqual(recovered, logHadOpenTurn ? [session.id] : []);
  if (logHadOpenTurn) assert.equal(store.get(session.id).status, 'interrupted');
  assert.equal(fs.existsSync(path.join(store.locate(session.id), 'writer.lock')), false, 'recovery gave the lease back');
  const taken = await store.openWriter(session.id);
  assert.equal(taken.openTurn, null, 'no turn left open after recovery');
  await taken.close();

  // Killed again, without recovery at start: the next process to open it takes the lease over itself.
  const again = startWorker(session.id, 0, 100_000);
  await again.ready;
  again.child.kill('SIGKILL');
  await again.exit;
  const next = await store.openWriter(session.id);
  await next.recover();
  assert.equal(store.history(session.id).openTurn, null);
  await next.close();
  await store.close();
});
