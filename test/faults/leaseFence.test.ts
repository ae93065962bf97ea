import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { messageText } from '../../src/core/format/messageText';
import { replay } from '../../src/core/wire/replay';
import { TurnStructure } from '../../src/core/wire/turnStructure';
import { scanWireLog } from '../../src/core/wire/wireReader';
import { spawnWorker, type ChildRun } from '../support/children';
import { assertIndexAgrees, doctorFinds, trials } from '../support/faults';
import { addTurn, openStore, tempDir, wasmPath } from '../support/store';
import { readSessionFolder } from '../../src/core/format/summary';

// A writer appending turns as fast as it can is stopped (SIGSTOP) at a random moment, past its
// lease's expiry; another process takes the lease over and appends turns; the first is continued
// (SIGCONT). It must stop at its next write with the lost-lease sentence, having written nothing
// after the takeover: the log's turn structure stays clean and state.json's turn count right.
// The lease times are shortened for this run (every process reads BRAID_LEASE_STALE_MS).
const TRIALS = trials('BRAID_FENCE_TRIALS', 12, 100);
const STALE_MS = 400;
process.env.BRAID_LEASE_STALE_MS = String(STALE_MS);
const root = tempDir('braid-fence-');
after(() => fs.rmSync(root, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the appending worker; resolves once it has ended `turns` turns, and a random moment more. */
async function startWriter(sessionId: string, turns: number): Promise<ChildRun & { ended: () => string[] }> {
  const run = spawnWorker('appendWorker', [root, sessionId, wasmPath]);
  const ended = () =>
    run
      .out()
      .split('\n')
      .filter((l) => l.startsWith('ended '))
      .map((l) => l.slice(6));
  await run.printed('ready');
  for (let waited = 0; ended().length < turns; waited += 5) {
    assert.ok(waited < 30_000 && run.child.exitCode === null, `the writer stopped: ${run.err()}`);
    await sleep(5);
  }
  await sleep(Math.random() * 25);
  return { ...run, ended };
}

test(`${TRIALS} writers stopped past their lease while another takes over: none writes after the takeover`, async (t) => {
  const store = await openStore(root);
  const session = await store.create({ workspaceDir: '/fence' });
  const dir = store.locate(session.id);
  const log = path.join(dir, 'agents', 'main', 'wire.jsonl');
  await store.close();
  const kept: string[] = [];
  let interrupted = 0;
  for (let i = 0; i < TRIALS; i++) {
    const paused = await startWriter(session.id, Math.floor(Math.random() * 3));
    paused.child.kill('SIGSTOP');
    const taker = await openStore(root);
    try {
      await sleep(STALE_MS * 1.5);
      const writer = await taker.openWriter(session.id);
      if (await writer.recover()) interrupted++;
      for (let n = 0; n < 2; n++) {
        const prompt = `taker ${i}-${n}`;
        await addTurn(writer, prompt, 'written after the takeover');
        kept.push(prompt);
      }
      await writer.close();
    } finally {
      paused.child.kill('SIGCONT');
      await taker.close();
    }
    assert.equal((await paused.exit).code, 1, 'the stopped writer went on after the takeover');
    assert.match(paused.err(), /another process took over writing this session/);
    kept.push(...paused.ended());

    const turns = new TurnStructure();
    const records: Parameters<typeof replay>[0] = [];
    scanWireLog(log, (record, offset) => {
      turns.add(record, offset);
      (records as unknown[]).push(record);
    });
    assert.equal(turns.describe(), undefined, `trial ${i + 1}: the turn structure is interleaved`);
    const history = replay(records);
    const prompts = new Set(history.messages.filter((m) => m.message.role === 'user').map((m) => messageText(m.message)));
    assert.deepEqual(
      kept.filter((p) => !prompts.has(p)),
      [],
      `trial ${i + 1}: turns that had ended are missing`,
    );
    const { state } = readSessionFolder(dir).summary;
    assert.equal(state.turnCount, history.nextTurn - 1, `trial ${i + 1}: the session's turn count`);
    assert.equal(history.openTurn, null);
  }
  t.diagnostic(`trials: ${TRIALS}; turns kept: ${kept.length}; turns the stopped writer had open and the taker ended interrupted: ${interrupted}`);
  assert.deepEqual((await doctorFinds(root)).left, []);
  await assertIndexAgrees(root);
});
