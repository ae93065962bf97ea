// Braid's measures of a generated store, run in a child process (programs/braidMeasures.ts): the
// store opened for one workspace, then first pages, searches and a turn's index update with the
// index in memory and the files in the page cache; every workspace's index loaded and the same
// across workspaces; and whole durable turns through the writer. Each measure resets the
// process's peak memory first, so each figure's memory is its own.
import fs from 'node:fs';
import path from 'node:path';
import type { Message } from '@mariozechner/pi-ai';
import { writeFileAtomic } from '../src/core/fs/atomic';
import { loadSqlJs } from '../src/core/index/sqlite';
import { silentLogger } from '../src/core/logger';
import { SessionStore } from '../src/core/store/sessionStore';
import type { NewRecord, UsageRecord } from '../src/core/wire/records';
import { workspaceKey } from '../src/core/workspace/workspaceKey';
import { realisticTurnRecords } from './generate';
import { peakRssMb, resetPeak, timed, type Results } from './memory';

const rssMb = () => process.memoryUsage().rss / 1024 / 1024;

/** `fn` once, its ms and the peak memory during it. */
async function once(fn: () => unknown): Promise<{ ms: number; peakMb: number }> {
  resetPeak();
  const start = process.hrtime.bigint();
  await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, peakMb: peakRssMb() };
}

/** See the file's comment. `queries` are searched in this workspace and in every workspace. */
export async function warm(root: string, workspaceDir: string, wasmPath: string, queries: readonly string[], runs: number): Promise<Results> {
  const key = workspaceKey(workspaceDir);
  const out: Results = {};
  const indexFile = path.join(root, 'sessions', key, 'index.sqlite');
  out.readIndexFile = await timed(5, () => fs.readFileSync(indexFile));
  out.sqlJsStart = await once(() => loadSqlJs(wasmPath));
  const open = () => SessionStore.open({ root, wasmPath, logger: silentLogger, workspaceKey: key });
  let store!: SessionStore;
  out.firstOpen = await once(async () => (store = await open())); // the process's first: its code paths are compiled on the way
  out.reopen = await timed(5, async () => (await open()).close());
  const filter = { workspaceKey: key, limit: 50 };
  out.listWorkspace = { ...(await timed(runs, () => store.index.list(filter))), detail: `${store.index.list(filter).length} rows` };
  for (const [i, q] of queries.entries()) {
    out[`searchWorkspace${i}`] = { ...(await timed(runs, () => store.index.search(q, filter))), detail: `${store.index.search(q, filter).length} hits` };
  }
  const [row] = store.index.list(filter);
  const summary = store.index.summaryOf(row!.id)!;
  out.indexUpdate = await timed(Math.min(runs, 5), async () => {
    store.index.putSummary(row!.id, summary);
    await store.index.flush();
  });
  // The least a durable update of one row does: an atomic, fsynced write of the row's bytes (its
  // state, fold and search text; the file is written in place, page by page).
  const floorFile = path.join(path.dirname(indexFile), 'bench-floor.tmp');
  const bytes = Buffer.alloc(JSON.stringify(summary).length, 1);
  out.indexUpdateFloor = await timed(Math.min(runs, 5), () => writeFileAtomic(floorFile, bytes));
  fs.rmSync(floorFile, { force: true });
  out.memoryWorkspace = { ms: 0, peakMb: rssMb() };
  await store.close();
  store = await open();
  out.loadAll = await once(() => store.index.list({ limit: 50 })); // loads every workspace's index
  out.listAll = await timed(runs, () => store.index.list({ limit: 50 }));
  for (const [i, q] of queries.entries()) {
    const everywhere = { limit: 50 };
    out[`searchAll${i}`] = { ...(await timed(runs, () => store.index.search(q, everywhere))), detail: `${store.index.search(q, everywhere).length} hits` };
  }
  out.memoryAll = { ms: 0, peakMb: rssMb() };
  await store.close();
  return out;
}

/**
 * Whole durable turns: a new session in `workspaceDir` grown to `earlier` realistic turns, then
 * `runs` more timed whole: turn_begin (fsynced), 6 messages, 3 usage and 2 tool records, turn_end
 * (fsynced), the workspace's index saved.
 */
export async function braidTurns(root: string, workspaceDir: string, wasmPath: string, earlier: number, runs: number): Promise<Results> {
  const store = await SessionStore.open({ root, wasmPath, logger: silentLogger, workspaceKey: workspaceKey(workspaceDir) });
  const state = await store.create({ workspaceDir });
  const writer = await store.openWriter(state.id);
  let turn = 0;
  const oneTurn = async () => {
    turn++;
    await writer.beginTurn(`p${turn}`, { provider: 'bench', id: 'bench-model', thinking: 'off' });
    for (const r of realisticTurnRecords(turn, 1_000_000 + turn, Date.now())) await appendRecord(writer, r);
    await writer.endTurn('completed');
    await store.index.flush();
  };
  for (let i = 0; i < earlier; i++) await oneTurn();
  const figure = await timed(runs, oneTurn);
  await writer.close();
  await store.close();
  return { turn: { ...figure, detail: `turns ${earlier + 1} to ${earlier + runs}` } };
}

type Writer = Awaited<ReturnType<SessionStore['openWriter']>>;

/** A generated record through the writer call the session core uses for it (turn_begin and turn_end are the caller's); its turn number is the writer's. */
async function appendRecord(writer: Writer, r: NewRecord): Promise<void> {
  if (r.t === 'message') await writer.appendMessage(r.message as Message, r.id);
  else if (r.t === 'usage') {
    const { t: _t, turn: _turn, ts: _ts, ...usage } = r as UsageRecord;
    await writer.appendUsage(usage);
  } else if (r.t === 'tool') await writer.append(r);
}
