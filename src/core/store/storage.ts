import fs from 'node:fs';
import path from 'node:path';
import { safeReaddir } from '../fs/probe';
import { isSessionId } from '../ids';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import type { StoreLayout } from '../format/layout';
import type { SessionIndex } from '../index/sessionIndex';

/** Bytes by kind: the agents' logs, the checkpoint and image blobs, the trash, and the rest (state files, indexes, locks). */
export interface StorageBytes {
  logs: number;
  blobs: number;
  trash: number;
  other: number;
  /** All of them; in a total, a file hard-linked into several sessions (a fork's blobs) counts once. */
  bytes: number;
}

/** One session folder's bytes (its trash is 0: a session in the trash is a trash entry). */
export interface SessionStorage extends StorageBytes {
  readonly id: string;
  readonly workspaceKey: string;
  /** The title the index has, or null when the index does not know the session. */
  readonly title: string | null;
  /** Blob files in its `blobs/`. */
  readonly blobFiles: number;
}

/** One workspace's bytes: its sessions, its index, its deleted sessions in the trash. */
export interface WorkspaceStorage extends StorageBytes {
  readonly workspaceKey: string;
  /** The folder its sessions were recorded in (from the index), or null when not known. */
  workspaceDir: string | null;
  sessions: number;
}

/** What Braid's data folder holds, by workspace, by session and by kind (docs/cli.md, braid storage). */
export interface StorageReport {
  readonly root: string;
  readonly total: StorageBytes;
  /** Largest first. */
  readonly workspaces: WorkspaceStorage[];
  /** Largest first. */
  readonly sessions: SessionStorage[];
}

const zero = (): StorageBytes => ({ logs: 0, blobs: 0, trash: 0, other: 0, bytes: 0 });

type Kind = 'logs' | 'blobs' | 'trash' | 'other';

/**
 * Adds the sizes of the files under `dir` to `into` by kind: `kindOf` names the kind of each of
 * its entries (a file or a folder). The first of `into` counts every link of a file (a session's
 * own bytes); the others count a hard-linked file once (`seen` holds the inodes counted already).
 */
function addFolder(dir: string, kindOf: (entry: string) => Kind, into: readonly StorageBytes[], seen: Set<string>): void {
  const add = (stat: fs.Stats, kind: Kind) => {
    const id = `${stat.dev}:${stat.ino}`;
    const first = stat.nlink <= 1 || !seen.has(id);
    if (stat.nlink > 1) seen.add(id);
    into.forEach((bytes, i) => {
      if (i > 0 && !first) return;
      bytes[kind] += stat.size;
      bytes.bytes += stat.size;
    });
  };
  const walk = (full: string, kind: Kind) => {
    const stat = fs.lstatSync(full, { throwIfNoEntry: false });
    if (!stat) return; // gone meanwhile
    if (!stat.isDirectory()) return add(stat, kind);
    for (const name of safeReaddir(full)) walk(path.join(full, name), kind);
  };
  for (const entry of safeReaddir(dir)) walk(path.join(dir, entry), kindOf(entry));
}

/** Bytes of everything under `dir` (a trash entry), each file once. */
export function folderBytes(dir: string): number {
  let bytes = 0;
  const walk = (folder: string) => {
    for (const name of safeReaddir(folder)) {
      const stat = fs.lstatSync(path.join(folder, name), { throwIfNoEntry: false });
      if (stat?.isDirectory()) walk(path.join(folder, name));
      else if (stat) bytes += stat.size;
    }
  };
  walk(dir);
  return bytes;
}

/**
 * Measures the store: every session folder (logs, blobs, the rest), each workspace's index and
 * files, the trash. Reads only. Titles and folders come from the index when it has them.
 */
export function storageReport(layout: StoreLayout, index?: SessionIndex): StorageReport {
  const total = zero();
  const seen = new Set<string>();
  const workspaces = new Map<string, WorkspaceStorage>();
  const workspaceOf = (key: string) => {
    let w = workspaces.get(key);
    if (!w) workspaces.set(key, (w = { workspaceKey: key, workspaceDir: null, sessions: 0, ...zero() }));
    return w;
  };
  const sessions: SessionStorage[] = [];
  for (const key of safeReaddir(layout.sessionsDir).filter(isWorkspaceKey)) {
    const workspace = workspaceOf(key);
    for (const name of safeReaddir(layout.workspaceDir(key))) {
      const full = path.join(layout.workspaceDir(key), name);
      const stat = fs.lstatSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (isSessionId(name) && stat.isDirectory()) {
        const row = index?.get(name);
        if (row && !workspace.workspaceDir) workspace.workspaceDir = row.workspaceDir;
        const own = zero();
        const kindOf = (entry: string): Kind => (entry === 'agents' ? 'logs' : entry === 'blobs' ? 'blobs' : 'other');
        addFolder(full, kindOf, [own, workspace, total], seen);
        const blobFiles = countFiles(layout.blobsDir(full));
        sessions.push({ id: name, workspaceKey: key, title: row ? row.title : null, blobFiles, ...own });
        workspace.sessions++;
      } else if (stat.isDirectory()) {
        addFolder(full, () => 'other', [zero(), workspace, total], seen); // a fork being built, or left by one
      } else {
        for (const b of [workspace, total]) {
          b.other += stat.size;
          b.bytes += stat.size;
        }
      }
    }
  }
  for (const key of safeReaddir(layout.trashDir)) {
    const full = path.join(layout.trashDir, key);
    const into: StorageBytes[] = isWorkspaceKey(key) ? [zero(), workspaceOf(key), total] : [zero(), total];
    addFolder(full, () => 'trash', into, seen);
  }
  // Files at the root (the old index, locks) and the worktree links.
  for (const name of safeReaddir(layout.root)) {
    if (name === 'sessions' || name === 'trash') continue;
    const full = path.join(layout.root, name);
    const stat = fs.lstatSync(full, { throwIfNoEntry: false });
    if (!stat) continue;
    const bytes = stat.isDirectory() ? folderBytes(full) : stat.size;
    total.other += bytes;
    total.bytes += bytes;
  }
  const bySize = <T extends { bytes: number }>(a: T, b: T) => b.bytes - a.bytes;
  return { root: layout.root, total, workspaces: [...workspaces.values()].sort(bySize), sessions: sessions.sort(bySize) };
}

function countFiles(dir: string): number {
  let files = 0;
  for (const name of safeReaddir(dir)) {
    const full = path.join(dir, name);
    const stat = fs.lstatSync(full, { throwIfNoEntry: false });
    if (stat?.isDirectory()) files += countFiles(full);
    else if (stat) files++;
  }
  return files;
}
