// The generated stores the benchmark measures, kept between runs in the system's temp folder under
// the generator's version (100k realistic sessions are about 9 GB and take minutes to write), so a
// rerun starts measuring at once. Sessions a run adds (a timed turn, `braid exec`) are removed again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeTime } from 'ulid';
import { StoreLayout } from '../src/core/format/layout';
import { workspaceKey } from '../src/core/workspace/workspaceKey';
import { GENERATED_BEFORE, GENERATOR_VERSION, generateSessions } from './generate';

/** Bytes a generated session takes on disk, folders included, with room to spare. */
const BYTES_PER_SESSION = 130 * 1024;

/** A generated store: its root, its workspace folders (real folders, so `braid exec` can work in one) and the workspace measured. */
export interface BenchStore {
  readonly root: string;
  readonly layout: StoreLayout;
  readonly count: number;
  readonly workspaces: number;
  /** The folder of workspace `n`. */
  workspaceDir(n: number): string;
  /** The workspace a process "works in": its folder, key and session folder. */
  readonly current: { readonly dir: string; readonly key: string; readonly sessions: string };
  /** Every workspace's session folder (sessions/<key>). */
  readonly sessionFolders: readonly string[];
}

/** The folder all cached stores live in. */
export function cacheRoot(): string {
  return path.join(os.tmpdir(), 'braid-bench-cache');
}

/** The cached store of `count` realistic sessions of `turns` turns over `workspaces` workspaces, generated now if missing. */
export function cachedStore(count: number, workspaces: number, turns: number, say: (line: string) => void): BenchStore {
  const folder = `g${GENERATOR_VERSION}/${count}-sessions-${workspaces}-workspaces-${turns}-turns`;
  return cachedStoreOf({ folder, count, workspaces, bytesPerSession: BYTES_PER_SESSION }, say, (root, workspaceDir) => {
    say(`generating ${count} sessions of ${turns} turns over ${workspaces} workspaces in ${path.dirname(root)}`);
    generateSessions(root, {
      count,
      workspaces,
      turns,
      workspaceOf: (i) => workspaceDir(i % workspaces),
      progress: (n) => n % 10_000 === 0 && say(`  generated ${n}/${count}`),
    });
  });
}

/** Where a generator's store is cached: its folder under the cache root (named by the generator's version and sizes), and what it holds. */
export interface CachedStoreSpec {
  readonly folder: string;
  readonly count: number;
  readonly workspaces: number;
  /** Bytes a session takes on disk, with room to spare: checked against the free space before generating. */
  readonly bytesPerSession: number;
}

/** The file that says a cached store in `dir` was generated whole. */
const generatedMark = (dir: string) => path.join(dir, 'generated');

/** Whether the store cached in `folder` (under the cache root) was generated whole: a run uses it as it is. */
export function storeIsCached(folder: string): boolean {
  return fs.existsSync(generatedMark(path.join(cacheRoot(), folder)));
}

/**
 * The store cached in `spec.folder` (its workspace folders beside it, one level up), written by
 * `generate(root, workspaceDir)` when missing or left half-written; sessions a run added are removed.
 */
export function cachedStoreOf(
  spec: CachedStoreSpec,
  say: (line: string) => void,
  generate: (root: string, workspaceDir: (n: number) => string) => void,
): BenchStore {
  const { count, workspaces } = spec;
  const dir = path.join(cacheRoot(), spec.folder);
  const base = path.dirname(dir);
  const workspaceDir = (n: number) => path.join(base, 'workspaces', `workspace-${n}`);
  const root = path.join(dir, 'store');
  const done = generatedMark(dir);
  if (!fs.existsSync(done)) {
    fs.rmSync(dir, { recursive: true, force: true });
    ensureSpace(base, count * spec.bytesPerSession);
    for (let n = 0; n < workspaces; n++) fs.mkdirSync(workspaceDir(n), { recursive: true });
    const started = Date.now();
    generate(root, workspaceDir);
    fs.writeFileSync(done, `${new Date().toISOString()}\n`);
    say(`  generated in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const layout = new StoreLayout(root);
  const current = workspaceDir(7 % workspaces);
  const key = workspaceKey(current);
  removeAddedSessions(layout);
  return {
    root,
    layout,
    count,
    workspaces,
    workspaceDir,
    current: { dir: current, key, sessions: layout.workspaceDir(key) },
    sessionFolders: Array.from({ length: workspaces }, (_, n) => layout.workspaceDir(workspaceKey(workspaceDir(n)))),
  };
}

/** Fails before writing when the disk cannot hold the store. */
function ensureSpace(base: string, needed: number): void {
  fs.mkdirSync(base, { recursive: true });
  const stats = fs.statfsSync(base);
  const free = stats.bavail * stats.bsize;
  if (free < needed * 1.2)
    throw new Error(`the store to generate needs about ${(needed / 2 ** 30).toFixed(1)} GiB in ${base}; ${(free / 2 ** 30).toFixed(1)} GiB are free`);
}

/** Removes the session folders a run added to a generated store (a timed turn, `braid exec`). The index is rebuilt before it is measured. */
export function removeAddedSessions(layout: StoreLayout): number {
  let removed = 0;
  for (const key of safeList(layout.sessionsDir)) {
    const folder = path.join(layout.sessionsDir, key);
    if (!fs.statSync(folder).isDirectory()) continue;
    for (const id of safeList(folder)) {
      if (!/^ses_[0-9A-Z]{26}$/.test(id) || decodeTime(id.slice(4)) < GENERATED_BEFORE) continue;
      fs.rmSync(path.join(folder, id), { recursive: true, force: true });
      removed++;
    }
  }
  fs.rmSync(path.join(layout.root, 'trash'), { recursive: true, force: true });
  return removed;
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Deletes every cached store (`--drop-cache`, or a disk too full to keep them). */
export function dropCache(say: (line: string) => void): void {
  say(`removing the cached stores in ${cacheRoot()}`);
  fs.rmSync(cacheRoot(), { recursive: true, force: true });
}

/** Bytes free on the disk of the cache. */
export function freeBytes(): number {
  const at = fs.existsSync(cacheRoot()) ? cacheRoot() : os.tmpdir();
  const stats = fs.statfsSync(at);
  return stats.bavail * stats.bsize;
}

/** The bytes of the current workspace's index file, of every workspace's, and of every session's main log. */
export function storeBytes(store: BenchStore): { index: number; allIndexes: number; logs: number } {
  const size = (file: string) => {
    try {
      return fs.statSync(file).size;
    } catch {
      return 0;
    }
  };
  let logs = 0;
  for (const folder of store.sessionFolders) {
    for (const id of safeList(folder)) if (id.startsWith('ses_')) logs += size(store.layout.agentLog(path.join(folder, id)));
  }
  const indexOf = (folder: string) => size(path.join(folder, 'index.sqlite'));
  return { index: indexOf(store.current.sessions), allIndexes: store.sessionFolders.reduce((n, f) => n + indexOf(f), 0), logs };
}
