import { dropBlameMemos } from './blameMemo';
import fs from 'node:fs';
import path from 'node:path';
import { listSessionFolders, type StoreLayout } from '../format/layout';
import { readState } from '../format/sessionState';
import { safeReaddir, statMtime } from '../fs/probe';
import { isKnown, type ContextRecord, type MessageRecord, type NewRecord } from '../wire/records';
import { counted } from '../counted';
import { formatBytes } from '../bytes';
import { readWireLog } from '../wire/wireReader';
import type { StoreContext } from './storeContext';
import { SessionWriter } from './sessionWriter';
import { SharedSessionError } from './errors';
import { isStale, readLease, SessionBusyError, type LeaseInfo } from './writerLease';
import { expiredTrash, removeTrashEntry, type ExpiredTrash } from './trash';

/** Checkpoints of sessions untouched this many days are proposed for removal unless asked otherwise. */
export const DEFAULT_GC_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;
const HASH = /^[0-9a-f]{64}$/;

/** Blob files of one session that gc would remove, for one reason. */
export interface BlobSet {
  readonly hashes: string[];
  /**
   * The bytes removing them frees. A blob hard-linked into several sessions (a fork's) is freed
   * only when its last link goes, and then counted once, in the first session of the plan that
   * holds it: a link whose file another session keeps frees nothing.
   */
  readonly bytes: number;
}

/** What gc would remove from one session folder. */
export interface SessionGc {
  readonly id: string;
  readonly workspaceKey: string;
  readonly dir: string;
  readonly title: string | null;
  /** Whole days since the session last changed (its newest record, or state.json). */
  readonly untouchedDays: number;
  /** The file images kept for rewinds, when the session is untouched for the days asked; else none. */
  readonly checkpoints: BlobSet;
  /** Blobs no record of the session names (the images of files a command left unchanged, among others). */
  readonly orphans: BlobSet;
  readonly bytes: number;
  /** Who writes the session now: it is left as it is (said, not removed). */
  readonly busy?: string;
}

/** What `braid gc` proposes (docs/cli.md, braid gc): nothing is removed until it is run with this plan. */
export interface GcPlan {
  readonly olderThanDays: number;
  readonly now: number;
  /** Sessions with blobs to remove, largest first (busy ones included, marked). */
  readonly sessions: SessionGc[];
  /** Trash entries past the retention (7 days). */
  readonly trash: ExpiredTrash[];
  /** Bytes the plan frees, busy sessions left out. */
  readonly bytes: number;
}

/** What a gc run removed, and what it left. */
export interface GcResult {
  readonly sessions: Array<{ id: string; checkpoints: number; orphans: number; bytes: number }>;
  readonly trash: ExpiredTrash[];
  readonly skipped: Array<{ id: string; why: string }>;
  readonly bytes: number;
}

/** One blob file: its size, the file it is a link of (device and inode) and how many links that file has. */
interface BlobFile {
  readonly size: number;
  readonly inode: string;
  readonly links: number;
}

/** The blobs of a session folder's `blobs/`, by hash. */
function blobFiles(layout: StoreLayout, dir: string): Map<string, BlobFile> {
  const files = new Map<string, BlobFile>();
  const blobs = layout.blobsDir(dir);
  for (const prefix of safeReaddir(blobs)) {
    for (const name of safeReaddir(path.join(blobs, prefix))) {
      if (!HASH.test(name) || name.slice(0, 2) !== prefix) continue;
      const stat = fs.lstatSync(path.join(blobs, prefix, name), { throwIfNoEntry: false });
      if (stat?.isFile()) files.set(name, { size: stat.size, inode: `${stat.dev}:${stat.ino}`, links: stat.nlink });
    }
  }
  return files;
}

/** Every blob hash found in a JSON value (a queued prompt's image, a rewind journal's images). */
function hashesIn(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    if (HASH.test(value)) into.add(value);
  } else if (Array.isArray(value)) value.forEach((v) => hashesIn(v, into));
  else if (typeof value === 'object' && value !== null) Object.values(value).forEach((v) => hashesIn(v, into));
}

/**
 * What a session's files name of its blobs: `checkpoints`, the file images of `file_change`
 * records and of rewinds (`restored`); `kept`, what must stay whatever the age: the prompts'
 * images (messages, `context` records, queued prompts in state.json), the system prompts and
 * tools of turns (`turn_begin`'s `prompt`) and a rewind's journal.
 */
export function blobReferences(layout: StoreLayout, dir: string): { checkpoints: Set<string>; kept: Set<string> } {
  const checkpoints = new Set<string>();
  const kept = new Set<string>();
  for (const agent of safeReaddir(layout.agentsDir(dir))) {
    for (const r of readWireLog(layout.agentLog(dir, agent)).records) {
      if (!isKnown(r)) continue;
      if (r.t === 'file_change') {
        for (const h of [r.before, r.after]) if (typeof h === 'string') checkpoints.add(h);
      } else if (r.t === 'rewind') {
        hashesIn((r as { restored?: unknown }).restored, checkpoints);
      } else if (r.t === 'message') {
        const content = (r as MessageRecord).message.content;
        if (Array.isArray(content)) for (const b of content) if (b.type === 'image') hashesIn((b as { blob?: unknown }).blob, kept);
      } else if (r.t === 'context') {
        for (const item of (r as ContextRecord).items) hashesIn(item.blob, kept);
      } else if (r.t === 'turn_begin') {
        hashesIn(r.prompt, kept); // the system prompt and tools a cache break is explained by
      }
    }
  }
  try {
    hashesIn(readState(layout.stateFile(dir)).queue, kept);
  } catch {
    // a broken state.json: the doctor's; its queue cannot be read, so nothing of it is known
  }
  try {
    hashesIn(JSON.parse(fs.readFileSync(layout.pendingRewindFile(dir), 'utf8')), kept);
  } catch {
    // no rewind journal (the usual case)
  }
  return { checkpoints, kept };
}

/** When the session last changed: its newest record (a gc record is not a change), or state.json when newer. */
function lastTouched(store: StoreContext, dir: string): number {
  let at = statMtime(store.layout.stateFile(dir)) ?? 0;
  try {
    at = Math.max(at, store.summaryAt(dir).state.updatedAt);
  } catch {
    at = Math.max(at, statMtime(store.layout.agentLog(dir)) ?? 0);
  }
  return at;
}

const holderText = (lease: LeaseInfo) => `being written by process ${lease.pid} on ${lease.host} (a window or the CLI)`;

/** What gc would remove of one session folder now, with each blob's file; undefined when nothing. */
interface Candidate extends SessionGc {
  readonly files: Map<string, BlobFile>;
}

/**
 * What gc would remove of one session folder now; undefined when nothing. Its bytes count each
 * blob whole; `freedBytes` turns them into what removing frees.
 */
function sessionGc(store: StoreContext, folder: { workspaceKey: string; id: string; dir: string }, olderThanDays: number, now: number): Candidate | undefined {
  const files = blobFiles(store.layout, folder.dir);
  if (files.size === 0) return undefined;
  const refs = blobReferences(store.layout, folder.dir);
  const untouchedDays = Math.floor((now - lastTouched(store, folder.dir)) / DAY_MS);
  const old = untouchedDays >= olderThanDays;
  const checkpoints: string[] = [];
  const orphans: string[] = [];
  for (const hash of files.keys()) {
    if (refs.kept.has(hash)) continue;
    if (!refs.checkpoints.has(hash)) orphans.push(hash);
    else if (old) checkpoints.push(hash);
  }
  if (checkpoints.length + orphans.length === 0) return undefined;
  const sum = (hashes: string[]) => hashes.reduce((n, h) => n + files.get(h)!.size, 0);
  const lease = readLease(store.layout.writerLock(folder.dir));
  const busy = lease && !isStale(lease) ? holderText(lease) : undefined;
  const c = { hashes: checkpoints, bytes: sum(checkpoints) };
  const o = { hashes: orphans, bytes: sum(orphans) };
  return {
    ...folder,
    title: store.index.get(folder.id)?.title ?? null,
    untouchedDays,
    checkpoints: c,
    orphans: o,
    bytes: c.bytes + o.bytes,
    files,
    ...(busy ? { busy } : {}),
  };
}

/**
 * Counts what the plan frees: a file (an inode) frees its bytes only when the plan removes every
 * link it has, and is counted once, in the first session that removes one of its links. Links
 * in sessions left as they are (busy ones) keep their files.
 */
function freedBytes(candidates: readonly Candidate[]): SessionGc[] {
  const removedLinks = new Map<string, number>();
  for (const c of candidates) {
    if (c.busy) continue;
    for (const hash of [...c.checkpoints.hashes, ...c.orphans.hashes]) {
      const inode = c.files.get(hash)!.inode;
      removedLinks.set(inode, (removedLinks.get(inode) ?? 0) + 1);
    }
  }
  const counted = new Set<string>();
  const freed = (files: Map<string, BlobFile>, busy: boolean, set: BlobSet): BlobSet => {
    let bytes = 0;
    for (const hash of set.hashes) {
      const file = files.get(hash)!;
      if (busy)
        bytes += file.size; // said as it is, never summed
      else if (removedLinks.get(file.inode) === file.links && !counted.has(file.inode)) {
        counted.add(file.inode);
        bytes += file.size;
      }
    }
    return { hashes: set.hashes, bytes };
  };
  return candidates.map(({ files, ...c }) => {
    const checkpoints = freed(files, Boolean(c.busy), c.checkpoints);
    const orphans = freed(files, Boolean(c.busy), c.orphans);
    return { ...c, checkpoints, orphans, bytes: checkpoints.bytes + orphans.bytes };
  });
}

/**
 * What gc would remove (reads only): the checkpoint blobs of sessions untouched for
 * `olderThanDays`, every session's orphaned blobs, and the trash past its retention. The prompts'
 * images are never proposed: they are the conversation, not checkpoints.
 */
export function planGc(store: StoreContext, options: { olderThanDays?: number; now?: number } = {}): GcPlan {
  const olderThanDays = options.olderThanDays ?? DEFAULT_GC_DAYS;
  const now = options.now ?? Date.now();
  const candidates: Candidate[] = [];
  for (const folder of listSessionFolders(store.layout)) {
    const found = sessionGc(store, folder, olderThanDays, now);
    if (found) candidates.push(found);
  }
  const sessions = freedBytes(candidates).sort((a, b) => b.bytes - a.bytes);
  const trash = expiredTrash(store.layout, now);
  const bytes = sessions.filter((s) => !s.busy).reduce((n, s) => n + s.bytes, 0) + trash.reduce((n, t) => n + t.bytes, 0);
  return { olderThanDays, now, sessions, trash, bytes };
}

/**
 * Removes what `plan` proposed. Each session is taken through its writer lease (one another
 * process holds is skipped, and said); under it, what to remove is worked out again (the session
 * may have changed since the plan) and `gc` records saying so are appended, fsynced, before any
 * file goes. Expired trash entries are removed as they are.
 */
export async function runGc(store: StoreContext, plan: GcPlan): Promise<GcResult> {
  const result: GcResult = { sessions: [], trash: [], skipped: [], bytes: 0 };
  let bytes = 0;
  for (const planned of plan.sessions) {
    if (planned.busy) {
      result.skipped.push({ id: planned.id, why: planned.busy });
      continue;
    }
    let writer: SessionWriter;
    try {
      writer = await SessionWriter.open(store, planned.dir);
    } catch (err) {
      if (err instanceof SessionBusyError) {
        result.skipped.push({ id: planned.id, why: holderText(err.holder) });
        continue;
      }
      if (err instanceof SharedSessionError) {
        result.skipped.push({ id: planned.id, why: 'pulled from a git remote: read-only here' });
        continue;
      }
      if (!fs.existsSync(planned.dir)) {
        result.skipped.push({ id: planned.id, why: 'deleted or moved meanwhile' });
        continue;
      }
      throw err;
    }
    try {
      const now = sessionGc(store, planned, plan.olderThanDays, plan.now);
      if (!now) continue;
      const records: NewRecord[] = [];
      if (now.checkpoints.hashes.length)
        records.push({ t: 'gc', reason: 'untouched', blobs: now.checkpoints.hashes.length, bytes: now.checkpoints.bytes, days: plan.olderThanDays });
      if (now.orphans.hashes.length) records.push({ t: 'gc', reason: 'orphaned', blobs: now.orphans.hashes.length, bytes: now.orphans.bytes });
      await writer.append(records, true);
      let freed = 0;
      for (const hash of [...now.checkpoints.hashes, ...now.orphans.hashes]) freed += removeBlob(store.layout, planned.dir, hash);
      store.index.putSummary(writer.id, writer.summary);
      result.sessions.push({ id: planned.id, checkpoints: now.checkpoints.hashes.length, orphans: now.orphans.hashes.length, bytes: freed });
      bytes += freed;
    } finally {
      await writer.close();
    }
  }
  if (result.sessions.length > 0) dropBlameMemos(store.layout); // a write whose images are gone is followed no further
  for (const entry of plan.trash) {
    if (!fs.existsSync(entry.dir)) continue; // undeleted or purged meanwhile
    removeTrashEntry(entry);
    result.trash.push(entry);
    bytes += entry.bytes;
  }
  store.logger.info(
    `gc removed the blobs of ${counted(result.sessions.length, 'session')} and ${counted(result.trash.length, 'trash entry', 'trash entries')}: ${formatBytes(bytes)}` +
      (result.skipped.length ? `; left ${counted(result.skipped.length, 'session')} being written` : ''),
  );
  return { ...result, bytes };
}

/** Removes one blob file, and its `blobs/<aa>` folder once empty; returns the bytes freed (none while another link keeps the file). */
function removeBlob(layout: StoreLayout, dir: string, hash: string): number {
  const file = path.join(layout.blobsDir(dir), hash.slice(0, 2), hash);
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  fs.rmSync(file, { force: true });
  try {
    fs.rmdirSync(path.dirname(file));
  } catch {
    // other blobs share the folder
  }
  return stat && stat.nlink <= 1 ? stat.size : 0;
}
