// The measures of the import benchmark, each run in a fresh lean child process
// (bench/programs/importMeasures.ts, started by bench/import.ts) so that its peak resident memory
// is its own: the JSON.parse floor over the source files, and importSessions into a store.
import fs from 'node:fs';
import path from 'node:path';
import { filesUnder } from '../src/core/import/findFiles';
import { Publisher } from '../src/core/import/publisher';
import { importSessions, type ImportAction } from '../src/core/import/importer';
import type { Logger } from '../src/core/logger';
import { SessionStore } from '../src/core/store/sessionStore';
import { peakRssMb } from './memory';
import { parseEveryLine } from './peers/patterns';

/** What a child is asked to measure. */
export type ImportMeasure =
  | { readonly kind: 'parse'; readonly source: string }
  | { readonly kind: 'split'; readonly source: string }
  | { readonly kind: 'folders'; readonly source: string; readonly storeRoot: string }
  | { readonly kind: 'import'; readonly source: string; readonly storeRoot: string; readonly dryRun: boolean };

/** A child's figures. */
export interface ImportFigures {
  readonly ms: number;
  /** Peak resident memory (VmHWM) of the child over its life, and its resident memory before the measure started. */
  readonly peakMb: number;
  readonly startMb: number;
  /** CPU time (user and system) the measure took, beside its wall time `ms`. */
  readonly cpuMs: number;
  /** parse: the lines parsed. */
  readonly lines?: number;
  /** import: the outcomes by action, the time of the first progress report, the warnings the store logged, and the first five reasons of outcomes skipped or failed. */
  readonly actions?: Partial<Record<ImportAction, number>>;
  readonly firstProgressMs?: number;
  /** import: the time when each tenth of the files was done (ten marks). */
  readonly tenthsMs?: readonly number[];
  readonly warnings?: readonly string[];
  readonly reasons?: readonly string[];
}

const elapsedSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** (floor) JSON.parse of every line of every source file, read in 1 MB chunks as the importer reads. */
function parseFloor(source: string): { ms: number; lines: number } {
  const start = process.hrtime.bigint();
  let lines = 0;
  for (const file of sessionFiles(source)) lines += parseEveryLine(file);
  return { ms: elapsedSince(start), lines };
}

/** (the simplest peer) Each file read whole as text, split into lines, each JSON.parsed: what a simple reader of sessions does. */
function splitPeer(source: string): { ms: number; lines: number } {
  const start = process.hrtime.bigint();
  let lines = 0;
  for (const file of sessionFiles(source))
    for (const line of fs.readFileSync(file, 'utf8').split('\n'))
      if (line) {
        JSON.parse(line);
        lines++;
      }
  return { ms: elapsedSince(start), lines };
}

/**
 * (floor) What any import of one durable folder per session costs on this file system: each
 * source file's bytes written as the log of a folder of its own (`<id>/agents/main/wire.jsonl`
 * and a small state.json), published as the importer publishes (a batch of 64: files fsynced,
 * then renamed into place, then the workspace folder fsynced once). No parsing at all.
 */
async function folderFloor(source: string, root: string): Promise<{ ms: number }> {
  const start = process.hrtime.bigint();
  const files = sessionFiles(source);
  const publisher = new Publisher({ published: () => undefined });
  const workspace = path.join(root, 'sessions', 'wd_floor_000000000000');
  fs.mkdirSync(workspace, { recursive: true });
  for (const [i, file] of files.entries()) {
    const partial = path.join(workspace, `.partial-${i}`);
    fs.mkdirSync(path.join(partial, 'agents', 'main'), { recursive: true });
    fs.writeFileSync(path.join(partial, 'agents', 'main', 'wire.jsonl'), fs.readFileSync(file));
    fs.writeFileSync(path.join(partial, 'state.json'), `{"v":2,"id":"${i}"}\n`);
    await publisher.add({ id: String(i), partial, final: path.join(workspace, `s${i}`) });
  }
  await publisher.flush();
  return { ms: elapsedSince(start) };
}

/** A progress bar on stderr, redrawn at most ten times a second (on a terminal; elsewhere a line per tenth, with the seconds since the start). */
function progressBar(label: string): (done: number, total: number) => void {
  const start = Date.now();
  let drawn = 0;
  let tenths = -1;
  return (done, total) => {
    if (!process.stderr.isTTY) {
      const now = Math.floor((10 * done) / Math.max(1, total));
      if (now > tenths) process.stderr.write(`  ${label}: ${done}/${total} at ${((Date.now() - start) / 1000).toFixed(1)} s\n`);
      tenths = now;
      return;
    }
    if (done < total && Date.now() - drawn < 100) return;
    drawn = Date.now();
    const width = 30;
    const filled = Math.round((done / Math.max(1, total)) * width);
    process.stderr.write(`\r  ${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`);
  };
}

/**
 * importSessions of everything under `source` (a folder of Claude Code projects, or one file)
 * into the store at `storeRoot`, opened as `braid import` opens it; timed from the call to the
 * store's close (which saves the index), the store's opening left out.
 */
async function importInto(m: Extract<ImportMeasure, { kind: 'import' }>, wasmPath: string): Promise<Omit<ImportFigures, 'peakMb' | 'startMb' | 'cpuMs'>> {
  const warnings: string[] = [];
  const logger: Logger = { trace() {}, info() {}, warn: (w) => warnings.push(w), error: (e) => warnings.push(e) };
  const store = await SessionStore.open({ root: m.storeRoot, wasmPath, logger, saveDelayMs: 1000 });
  const bar = progressBar(m.dryRun ? 'dry run' : 'import');
  const start = process.hrtime.bigint();
  let firstProgressMs: number | undefined;
  const tenthsMs: number[] = [];
  const outcomes = await importSessions(store, {
    from: 'claude-code',
    paths: [m.source],
    dryRun: m.dryRun,
    onProgress: (done, total) => {
      firstProgressMs ??= elapsedSince(start);
      while (tenthsMs.length < Math.floor((10 * done) / total)) tenthsMs.push(elapsedSince(start));
      bar(done, total);
    },
  });
  await store.close();
  const ms = elapsedSince(start);
  const actions: Partial<Record<ImportAction, number>> = {};
  for (const o of outcomes) actions[o.action] = (actions[o.action] ?? 0) + 1;
  const reasons = [...new Set(outcomes.filter((o) => o.action === 'failed' || o.action === 'skipped').map((o) => `${o.action}: ${o.reason}`))].slice(0, 5);
  return { ms, actions, firstProgressMs, tenthsMs, warnings: warnings.slice(0, 5), reasons };
}

/** Runs one measure in this (child) process; its figures with the process's peak memory. */
export async function runImportMeasure(m: ImportMeasure, wasmPath: string): Promise<ImportFigures> {
  const startMb = process.memoryUsage().rss / 2 ** 20;
  const cpu = process.cpuUsage();
  const figures =
    m.kind === 'parse'
      ? parseFloor(m.source)
      : m.kind === 'split'
        ? splitPeer(m.source)
        : m.kind === 'folders'
          ? await folderFloor(m.source, m.storeRoot)
          : await importInto(m, wasmPath);
  const used = process.cpuUsage(cpu);
  return { ...figures, startMb, peakMb: peakRssMb(), cpuMs: (used.user + used.system) / 1000 };
}

/** The session files of a folder of Claude Code sessions, as the importer finds them. */
export function sessionFiles(source: string): string[] {
  return filesUnder(source, (f) => f.endsWith('.jsonl'), 3).map((r) => r.file);
}
