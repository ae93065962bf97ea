import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BlobStore } from '../tools/checkpoints';
import { isKnown, type KnownRecord, type NewRecord, type WireRecord } from '../wire/records';
import { HistoryBuilder } from '../wire/replay';
import { scanWireLog } from '../wire/wireReader';
import type { SessionStore } from './sessionStore';
import { finishPending, runPending } from './pendingRewind';
import { promptText } from './summary';
import { WriterLease } from './writerLease';

/** How a rewind would change (or changed) one file. */
export interface FileRewind {
  /** Relative to the workspace folder. */
  readonly path: string;
  /** What restoring does: the file was created by the dropped turns (restore deletes it), deleted (restore recreates it), or modified. */
  readonly action: 'delete' | 'recreate' | 'restore';
  /** Lines the restore adds and removes, compared with the file as it is now. */
  readonly added: number;
  readonly removed: number;
  /** The file differs from what Braid last wrote: someone changed it outside Braid since. */
  readonly changedOutside: boolean;
}

export interface RewindPreview {
  readonly toTurn: number;
  readonly messageId: string;
  /** The text of the rewound message, for edit & resend. */
  readonly text: string;
  readonly turnsDropped: number;
  readonly files: FileRewind[];
  /** Shell commands that ran in the dropped turns: their effects cannot be undone. */
  readonly commands: string[];
}

export interface RewindResult extends RewindPreview {
  readonly restored: string[];
  /** Files changed outside Braid and left alone (not confirmed). */
  readonly skipped: string[];
}

/** A rewind that cannot be done as asked; the message says why. */
export class RewindError extends Error {
  override readonly name = 'RewindError';
}

/** What the `rewind` record keeps of each file it restored, so `undo rewind` can put it back. */
interface RestoredFile {
  readonly path: string;
  /** The file's image just before the rewind (null: absent). */
  readonly was: string | null;
  /** The image the rewind wrote (null: deleted). */
  readonly now: string | null;
}

function readAll(file: string): WireRecord[] {
  const records: WireRecord[] = [];
  scanWireLog(file, (r) => records.push(r));
  return records;
}

function lineCount(data: Buffer | null): string[] {
  return data ? data.toString('utf8').split('\n') : [];
}

/** Added and removed lines between two texts (a multiset count of lines, enough for a preview). */
function lineDelta(from: Buffer | null, to: Buffer | null): { added: number; removed: number } {
  const counts = new Map<string, number>();
  for (const l of lineCount(from)) counts.set(l, (counts.get(l) ?? 0) + 1);
  let added = 0;
  for (const l of lineCount(to)) {
    const c = counts.get(l) ?? 0;
    if (c > 0) counts.set(l, c - 1);
    else added++;
  }
  let removed = 0;
  for (const c of counts.values()) removed += c;
  return { added, removed };
}

interface Plan {
  preview: RewindPreview;
  /** Per path: the image to restore, and the image Braid last left there. */
  targets: Map<string, { before: string | null; lastAfter: string | null }>;
}

function plan(store: SessionStore, sessionId: string, messageId: string): Plan {
  const dir = store.locate(sessionId);
  const records = readAll(store.layout.agentLog(dir));
  const builder = new HistoryBuilder();
  for (const r of records) builder.add(r);
  const history = builder.build();
  const target = history.messages.find((m) => m.id === messageId);
  if (!target) throw new RewindError(`message ${messageId} is not in the conversation of ${sessionId} (it may have been rewound already)`);
  if (target.message.role !== 'user') throw new RewindError(`message ${messageId} is not a prompt; rewind goes back to one of your messages`);
  if (history.openTurn !== null) throw new RewindError(`turn ${history.openTurn} is still running; stop it before rewinding`);
  const toTurn = target.turn;
  const dropped = history.fileChanges.filter((c) => c.turn >= toTurn);
  const targets = new Map<string, { before: string | null; lastAfter: string | null }>();
  for (const c of dropped) {
    const t = targets.get(c.path);
    if (t) t.lastAfter = c.after;
    else targets.set(c.path, { before: c.before, lastAfter: c.after });
  }
  const blobs = new BlobStore(store.layout.blobsDir(dir));
  const workspace = store.get(sessionId).workspaceDir;
  const files: FileRewind[] = [];
  for (const [rel, t] of targets) {
    const full = path.resolve(workspace, rel);
    const current = fs.existsSync(full) ? fs.readFileSync(full) : null;
    const currentHash = current ? createHash('sha256').update(current).digest('hex') : null;
    const restored = t.before ? blobs.get(t.before) : null;
    const action = t.before === null ? 'delete' : current === null ? 'recreate' : 'restore';
    files.push({ path: rel, action, ...lineDelta(current, restored), changedOutside: currentHash !== t.lastAfter });
  }
  const commands: string[] = [];
  for (const m of history.messages) {
    if (m.turn < toTurn || m.message.role !== 'assistant') continue;
    for (const b of m.message.content) if (b.type === 'toolCall' && b.name === 'bash') commands.push(String((b.arguments as { command?: unknown }).command ?? ''));
  }
  const turnsDropped = history.turnBegins.filter((b) => b.turn >= toTurn).length;
  return { preview: { toTurn, messageId, text: promptText(target.message), turnsDropped, files, commands }, targets };
}

/** What a rewind to `messageId` would do, without doing it. */
export function previewRewind(store: SessionStore, sessionId: string, messageId: string): RewindPreview {
  return plan(store, sessionId, messageId).preview;
}

/**
 * Rewinds the conversation to before the prompt `messageId` (DESIGN.md 6): appends a `rewind`
 * record (the dropped records stay in the log). With `files`, restores every file the dropped
 * turns changed to its image before the first dropped change, after saving the current images so
 * `undoRewind` can put them back; files changed outside Braid since are skipped unless
 * `confirmOutside`.
 */
export async function rewindSession(store: SessionStore, sessionId: string, messageId: string, options: { files: boolean; confirmOutside?: boolean; fence?: () => void }): Promise<RewindResult> {
  return withLease(store, sessionId, options.fence, (fence) => rewindHeld(store, sessionId, messageId, options, fence));
}

/**
 * Runs `fn` holding the session's writer lease, with the lease's check for every write: an open
 * Session holds it already and passes its `held` fence; otherwise it is taken for the call.
 */
async function withLease<T>(store: SessionStore, sessionId: string, held: (() => void) | undefined, fn: (fence: () => void) => Promise<T>): Promise<T> {
  if (held) return fn(held);
  const dir = store.locate(sessionId);
  const lease = await WriterLease.acquire(store.layout, dir);
  const fence = () => lease.check();
  try {
    await finishPending(store, dir, fence);
    return await fn(fence);
  } finally {
    await lease.release();
  }
}

async function rewindHeld(store: SessionStore, sessionId: string, messageId: string, options: { files: boolean; confirmOutside?: boolean }, fence: () => void): Promise<RewindResult> {
  const { preview, targets } = plan(store, sessionId, messageId);
  const dir = store.locate(sessionId);
  const blobs = new BlobStore(store.layout.blobsDir(dir));
  const workspace = store.get(sessionId).workspaceDir;
  const restored: RestoredFile[] = [];
  const skipped: string[] = [];
  if (options.files) {
    for (const file of preview.files) {
      if (file.changedOutside && !options.confirmOutside) {
        skipped.push(file.path);
        continue;
      }
      const full = path.resolve(workspace, file.path);
      const was = fs.existsSync(full) ? blobs.put(fs.readFileSync(full)) : null;
      restored.push({ path: file.path, was, now: targets.get(file.path)!.before });
    }
  }
  // Journaled: a crash part-way is finished by the next process that opens the session.
  await runPending(store, dir, {
    op: 'rewind', workspaceDir: workspace, turnCount: preview.toTurn - 1,
    records: [{ t: 'rewind', toTurn: preview.toTurn, messageId, files: options.files, ...({ restored } as object) } as NewRecord],
    files: restored.map((r) => ({ path: r.path, from: r.was, to: r.now })),
  }, fence);
  return { ...preview, restored: restored.map((r) => r.path), skipped };
}

/**
 * Undoes the last rewind when nothing happened since: the dropped records are appended again (the
 * log only grows) and the files it restored get the images they had just before it.
 */
export async function undoRewind(store: SessionStore, sessionId: string, options: { fence?: () => void } = {}): Promise<{ turns: number; files: string[] }> {
  return withLease(store, sessionId, options.fence, (fence) => undoHeld(store, sessionId, fence));
}

async function undoHeld(store: SessionStore, sessionId: string, fence: () => void): Promise<{ turns: number; files: string[] }> {
  const dir = store.locate(sessionId);
  const logFile = store.layout.agentLog(dir);
  const records = readAll(logFile);
  let last = -1;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (r.t === 'rewind') {
      last = i;
      break;
    }
    if (r.t === 'turn_begin' || r.t === 'message') throw new RewindError('the session went on after its last rewind, so that rewind cannot be undone; fork it instead');
  }
  if (last < 0) throw new RewindError(`session ${sessionId} has no rewind to undo`);
  const rewind = records[last] as KnownRecord & { toTurn: number; restored?: RestoredFile[] };
  // The records the rewind dropped, as they were: the effective ones of turns >= toTurn.
  const scoped: KnownRecord[] = [];
  for (const r of records.slice(0, last)) {
    if (!isKnown(r)) continue;
    if (r.t === 'rewind') {
      for (let j = scoped.length - 1; j >= 0; j--) if ((scoped[j] as { turn: number }).turn >= r.toTurn) scoped.splice(j, 1);
    } else if ('turn' in r && typeof (r as { turn: unknown }).turn === 'number') scoped.push(r);
  }
  const again = scoped.filter((r) => (r as { turn: number }).turn >= rewind.toTurn).map((r) => {
    const { v: _v, ts: _ts, ...rest } = r as KnownRecord & Record<string, unknown>;
    return rest as unknown as NewRecord;
  });
  const turns = new Set(again.map((r) => (r as { turn: number }).turn)).size;
  const maxTurn = Math.max(rewind.toTurn - 1, ...again.map((r) => (r as { turn: number }).turn));
  const restored = rewind.restored ?? [];
  await runPending(store, dir, {
    op: 'undo', workspaceDir: store.get(sessionId).workspaceDir, turnCount: maxTurn, records: again,
    files: restored.map((f) => ({ path: f.path, from: f.now, to: f.was })),
  }, fence);
  const files = restored.map((f) => f.path);
  return { turns, files };
}
