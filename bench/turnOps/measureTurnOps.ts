// The figures of the fresh-process turn operations: each `braid` command a new `node dist/cli.js`
// process timed from spawn to exit, beside its floor (bench/turnOps/floors.mjs) in a new process
// timed the same way, in the same run; each run of a command that changes the session on a fresh
// copy of the store, copied outside the clock.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../src/core/logger';
import { SessionStore } from '../../src/core/store/sessionStore';
import { median } from '../table';
import { appendShapedTurns, type TurnSpans } from './generateSession';
import type { SessionShape } from './sessionShape';

/** A store holding the one generated session. */
export interface TurnOpsStore {
  readonly root: string;
  readonly sessionId: string;
  /** The session's folder, relative to the store's root (the same in each copy). */
  readonly sessionDir: string;
  /** The main log, relative to the store's root. */
  readonly log: string;
  readonly bytes: number;
  readonly spans: TurnSpans;
}

/** Builds the store in `root`: one session whose main log grows to about `bytes` in the shape of real sessions. */
export async function buildStore(root: string, wasmPath: string, bytes: number, shape: SessionShape): Promise<TurnOpsStore> {
  const store = await SessionStore.open({ root, wasmPath, logger: silentLogger, saveDelayMs: 0 });
  try {
    const session = await store.create({ workspaceDir: '/bench/turn-ops', title: 'Turn operations' });
    const dir = store.locate(session.id);
    const log = store.layout.agentLog(dir);
    const spans = appendShapedTurns(log, bytes, shape);
    store.index.rereadFolder(dir);
    return { root, sessionId: session.id, sessionDir: path.relative(root, dir), log: path.relative(root, log), bytes: fs.statSync(log).size, spans };
  } finally {
    await store.close();
  }
}

/** Milliseconds from spawn to exit of `node <args>`; throws when it fails. */
function timedNode(args: readonly string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.toString().slice(-2000)}`);
  return ms;
}

/** A command and its floor: the median ms of each over the runs. */
export interface Paired {
  readonly ms: number;
  readonly floorMs: number;
}

/** How the runs are made: the CLI bundle, the floors program, the scratch folder for copies, the runs of each. */
export interface TurnOpsRig {
  readonly cli: string;
  readonly floors: string;
  readonly scratch: string;
  readonly runs: number;
}

/** `braid --data-dir <root> <args>` in a new process. */
function braid(rig: TurnOpsRig, root: string, ...args: string[]): number {
  return timedNode([rig.cli, '--data-dir', root, ...args]);
}

/** Runs `each` `rig.runs` times, each on a fresh copy of the store made outside the clock; the medians. */
function onCopies(rig: TurnOpsRig, store: TurnOpsStore, each: (copy: string) => Paired): Paired {
  const figures: Paired[] = [];
  for (let i = 0; i < rig.runs; i++) {
    const copy = path.join(rig.scratch, `copy-${i}`);
    fs.cpSync(store.root, copy, { recursive: true, preserveTimestamps: true }); // the index row stays current: its state mtime is kept
    try {
      figures.push(each(copy));
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  }
  return { ms: median(figures.map((f) => f.ms)), floorMs: median(figures.map((f) => f.floorMs)) };
}

/** `rewind --turn N` against reading the bytes it drops (from turn N's start to the end). */
export function measureRewind(rig: TurnOpsRig, store: TurnOpsStore, turn: number): Paired {
  const from = store.spans.starts[turn - 1]!;
  return onCopies(rig, store, (copy) => {
    const floorMs = timedNode([rig.floors, 'read-span', path.join(copy, store.log), String(from)]);
    return { ms: braid(rig, copy, 'rewind', store.sessionId, '--turn', String(turn)), floorMs };
  });
}

/** `fork --turn N` against copying the log's bytes up to the end of turn N to a new file, fsynced. */
export function measureFork(rig: TurnOpsRig, store: TurnOpsStore, turn: number): Paired {
  const bytes = store.spans.ends[turn - 1]!;
  return onCopies(rig, store, (copy) => {
    const floorMs = timedNode([rig.floors, 'copy-prefix', path.join(copy, store.log), String(bytes), path.join(copy, 'floor-copy.jsonl')]);
    return { ms: braid(rig, copy, 'fork', store.sessionId, '--turn', String(turn)), floorMs };
  });
}

/** `show --json` against reading the log and JSON.parse of every line (the store is only read: no copies). */
export function measureShowJson(rig: TurnOpsRig, store: TurnOpsStore): Paired {
  const ms: number[] = [];
  const floorMs: number[] = [];
  for (let i = 0; i < rig.runs; i++) {
    floorMs.push(timedNode([rig.floors, 'parse-lines', path.join(store.root, store.log)]));
    ms.push(braid(rig, store.root, 'show', store.sessionId, '--json'));
  }
  return { ms: median(ms), floorMs: median(floorMs) };
}

/** What undo-rewind costs: its time, the bytes the session folder grows by at an undo, and over 10 rewind/undo cycles. */
export interface UndoFigures {
  readonly ms: number;
  /** Median growth of the session folder (its logs and state) at one undo-rewind. */
  readonly undoGrowth: number;
  /** The same at the rewind before it. */
  readonly rewindGrowth: number;
  /** The session folder's growth after `cycles` rewinds at turn N, each undone. */
  readonly cyclesGrowth: number;
  readonly cycles: number;
}

/** `undo-rewind` after a `rewind --turn N` (untimed), each on a fresh copy; then 10 cycles on one copy. */
export function measureUndo(rig: TurnOpsRig, store: TurnOpsStore, turn: number, cycles = 10): UndoFigures {
  const ms: number[] = [];
  const undoGrowth: number[] = [];
  const rewindGrowth: number[] = [];
  const copy = path.join(rig.scratch, 'undo');
  const sizeOf = () => folderBytes(path.join(copy, store.sessionDir));
  for (let i = 0; i < rig.runs; i++) {
    fs.cpSync(store.root, copy, { recursive: true, preserveTimestamps: true }); // the index row stays current: its state mtime is kept
    const before = sizeOf();
    braid(rig, copy, 'rewind', store.sessionId, '--turn', String(turn));
    const rewound = sizeOf();
    ms.push(braid(rig, copy, 'undo-rewind', store.sessionId));
    undoGrowth.push(sizeOf() - rewound);
    rewindGrowth.push(rewound - before);
    fs.rmSync(copy, { recursive: true, force: true });
  }
  fs.cpSync(store.root, copy, { recursive: true, preserveTimestamps: true }); // the index row stays current: its state mtime is kept
  const before = sizeOf();
  for (let c = 0; c < cycles; c++) {
    braid(rig, copy, 'rewind', store.sessionId, '--turn', String(turn));
    braid(rig, copy, 'undo-rewind', store.sessionId);
  }
  const cyclesGrowth = sizeOf() - before;
  fs.rmSync(copy, { recursive: true, force: true });
  return { ms: median(ms), undoGrowth: median(undoGrowth), rewindGrowth: median(rewindGrowth), cyclesGrowth, cycles };
}

/** The bytes of every file under `dir`. */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}
