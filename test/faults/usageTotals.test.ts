import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../src/cli/run';
import { newMessageId } from '../../src/core/ids';
import type { UsageFigures } from '../../src/core/index/usageRows';
import { listSessionFolders } from '../../src/core/format/layout';
import { forkSession } from '../../src/core/store/fork';
import { StoreLayout } from '../../src/core/format/layout';
import { rewindSession, RewindError, undoRewind } from '../../src/core/store/rewind';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { seededRandom } from '../support/corruptStore';
import { trials } from '../support/faults';
import { assistantMessage, openStore, tempDir, userMessage, wasmPath } from '../support/store';

// Seeded random forks (whole, at a turn, of forks), rewinds, undos, deletes, turns and side
// questions on a store, then `braid usage` against the truth: each call the test made, counted
// once while some session still holds it, under the session that made it. What a session holds
// is read from its log's raw lines (the ids of its usage records), not by the code under test.
const TRIALS = trials('BRAID_USAGE_TRIALS', 12, 120);
const OPS = 30;
const SEED = Number(process.env.BRAID_USAGE_SEED ?? Date.now() % 2 ** 31);
console.log(`usage totals seed ${SEED} (replay with BRAID_USAGE_SEED=${SEED})`);
const base = tempDir('braid-usage-');
after(() => fs.rmSync(base, { recursive: true, force: true }));

type Rng = ReturnType<typeof seededRandom>;
/** A call the test made: who made it, with which model, and what it cost. */
interface Call {
  maker: string;
  model: string;
  input: number;
  output: number;
  cacheRead: number;
}

/** One turn of `id` with 1 to 3 calls, and sometimes a side question's call after it. */
async function turn(store: SessionStore, id: string, rng: Rng, ledger: Map<string, Call>): Promise<void> {
  const writer = await store.openWriter(id);
  try {
    const call = (messageId: string): Parameters<typeof writer.appendUsage>[0] => {
      const c: Call = { maker: id, model: rng.pick(['m1', 'm2']), input: 1 + rng.int(500), output: 1 + rng.int(50), cacheRead: rng.int(100) };
      ledger.set(messageId, c);
      return {
        messageId,
        provider: 'p',
        model: c.model,
        input: c.input,
        output: c.output,
        cacheRead: c.cacheRead,
        cacheWrite: 0,
        reasoning: 0,
        cost: 0,
        latencyMs: 1,
        stopReason: 'stop',
      };
    };
    await writer.beginTurn(`p-${rng.int(1e9)}`, { provider: 'p', id: 'm1', thinking: 'off' });
    await writer.appendMessage(userMessage(`prompt ${rng.int(1e6)}`));
    for (let n = 1 + rng.int(3); n > 0; n--) {
      const answer = await writer.appendMessage(assistantMessage('answer'));
      await writer.appendUsage(call(answer.id));
    }
    await writer.endTurn('completed');
    if (rng.next() < 0.25) await writer.appendCallUsage({ ...call(newMessageId()), purpose: 'side-question' });
  } finally {
    await writer.close();
  }
}

/** One random operation on a random live session. */
async function step(store: SessionStore, rng: Rng, live: string[], ledger: Map<string, Call>, workspaceDir: string): Promise<string> {
  const roll = rng.next();
  if (live.length === 0 || roll < 0.08) {
    const created = await store.create({ workspaceDir });
    live.push(created.id);
    await turn(store, created.id, rng, ledger);
    return 'new';
  }
  const id = rng.pick(live);
  const history = store.history(id);
  const prompts = history.messages.filter((m) => m.message.role === 'user');
  if (roll < 0.4) {
    await turn(store, id, rng, ledger);
    return 'turn';
  }
  if (roll < 0.6) {
    const ended = history.turnEnds.map((t) => t.turn);
    const atTurn = ended.length > 0 && rng.next() < 0.6 ? rng.pick(ended) : undefined;
    live.push((await forkSession(store, id, atTurn === undefined ? {} : { turn: atTurn })).id);
    return atTurn === undefined ? 'fork' : `fork@${atTurn}`;
  }
  if (roll < 0.75 && prompts.length > 0) {
    await rewindSession(store, id, rng.pick(prompts).id, { files: false });
    return 'rewind';
  }
  if (roll < 0.92) {
    try {
      await undoRewind(store, id);
      return 'undo';
    } catch (err) {
      if (!(err instanceof RewindError)) throw err;
      return 'undo refused';
    }
  }
  if (live.length > 1) {
    await store.delete(id);
    live.splice(live.indexOf(id), 1);
    return 'delete';
  }
  return 'nothing';
}

/** The ids of the usage records in a session's main log, read from its raw lines. */
function heldIds(dir: string): Set<string> {
  const ids = new Set<string>();
  for (const line of fs.readFileSync(path.join(dir, 'agents', 'main', 'wire.jsonl'), 'utf8').split('\n')) {
    if (line.includes('"t":"usage"')) ids.add((JSON.parse(line) as { messageId: string }).messageId);
  }
  return ids;
}

function sum(calls: Iterable<Call>): Pick<UsageFigures, 'calls' | 'input' | 'output' | 'cacheRead'> {
  const s = { calls: 0, input: 0, output: 0, cacheRead: 0 };
  for (const c of calls) {
    s.calls++;
    s.input += c.input;
    s.output += c.output;
    s.cacheRead += c.cacheRead;
  }
  return s;
}
const figures = (u: UsageFigures) => ({ calls: u.calls, input: u.input, output: u.output, cacheRead: u.cacheRead });

interface Report {
  total: UsageFigures;
  bySession: Array<UsageFigures & { key: string }>;
  byModel: Array<UsageFigures & { key: string }>;
}

async function usageReport(root: string): Promise<Report> {
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', root, 'usage', '--all', '--json'], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env: {},
    wasmPath,
  });
  assert.equal(code, 0, err);
  return JSON.parse(out) as Report;
}

test(`${TRIALS} stores of random forks, rewinds, undos and deletes: braid usage counts every call held once, under its maker`, async () => {
  for (let trial = 0; trial < TRIALS; trial++) {
    const seed = SEED + trial * 7919;
    const rng = seededRandom(seed);
    const root = path.join(base, `t${trial}`);
    const ledger = new Map<string, Call>();
    const live: string[] = [];
    const ops: string[] = [];
    const store = await openStore(root);
    try {
      for (let i = 0; i < OPS; i++) ops.push(await step(store, rng, live, ledger, '/usage-trial'));
    } finally {
      await store.close();
    }
    const label = `seed ${seed}: ${ops.join(' ')}`;
    // The truth: every call some live session's log holds, once.
    const held = new Map<string, Set<string>>();
    for (const folder of listSessionFolders(new StoreLayout(root))) held.set(folder.id, heldIds(folder.dir));
    const all = new Set([...held.values()].flatMap((ids) => [...ids]));
    const calls = [...all].map((id) => ledger.get(id)!);
    for (const report of [await usageReport(root), await rebuiltReport(root)]) {
      assert.deepEqual(figures(report.total), sum(calls), `${label}: the total`);
      for (const maker of new Set(calls.map((c) => c.maker))) {
        const line = report.bySession.find((l) => l.key === maker);
        assert.deepEqual(line && figures(line), sum(calls.filter((c) => c.maker === maker)), `${label}: the calls of ${maker}`);
      }
      assert.equal(report.bySession.length, new Set(calls.map((c) => c.maker)).size, label);
      for (const model of ['m1', 'm2']) {
        const line = report.byModel.find((l) => l.key === `p/${model}`);
        assert.deepEqual(line ? figures(line) : sum([]), sum(calls.filter((c) => c.model === model)), `${label}: model ${model}`);
      }
    }
    // Each session's own line: its own calls, and a fork's history apart.
    const check = await openStore(root);
    try {
      for (const [id, ids] of held) {
        const usage = check.index.sessionUsage(id);
        const mine = [...ids].map((x) => ledger.get(x)!);
        assert.deepEqual(figures(usage.own), sum(mine.filter((c) => c.maker === id)), `${label}: own line of ${id}`);
        assert.deepEqual(figures(usage.history), sum(mine), `${label}: history of ${id}`);
        assert.equal(check.get(id).usage.input, usage.history.input, `${label}: state.json of ${id} counts its history once`);
      }
    } finally {
      await check.close();
    }
  }
});

/** The report after `braid rebuild-index`: the index rebuilt from the folders alone. */
async function rebuiltReport(root: string): Promise<Report> {
  const code = await runCli(['--data-dir', root, 'rebuild-index'], {
    stdout: { write: () => undefined },
    stderr: { write: () => undefined },
    env: {},
    wasmPath,
  });
  assert.equal(code, 0);
  return usageReport(root);
}
