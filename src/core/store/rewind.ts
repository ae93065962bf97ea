import { createHash } from 'node:crypto';
import { BlobStore } from '../tools/checkpoints';
import { isKnown, type KnownRecord, type NewRecord, type WireRecord } from '../wire/records';
import { HistoryBuilder } from '../wire/replay';
import { scanWireLog } from '../wire/wireReader';
import type { SessionStore } from './sessionStore';
import { finishPending, runPending } from './pendingRewind';
import { currentBytes, SessionFiles } from './sessionFiles';
import { promptText } from './summary';
import { WriterLease } from './writerLease';

/** How a rewind would change (or changed) one file. */
export interface FileRewind {
  /** Relative to its workspace folder. */
  readonly path: string;
  /** The workspace folder the change happened in (the session's folder for logs from before Braid recorded it). */
  readonly root: string;
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
  /** Files the dropped turns' records name that a rewind leaves alone: outside the session's workspace folders, or not regular files. */
  readonly refused: string[];
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
  /** Its workspace folder (absent in records from before Braid recorded it). */
  readonly root?: string;
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

/** A file the dropped turns changed: the image to restore, and the image Braid last left there. */
interface Target {
  readonly root: string | undefined;
  readonly path: string;
  readonly before: string | null;
  lastAfter: string | null;
}

interface Plan {
  preview: RewindPreview;
  /** Per file of the preview (by keyOf(file.root, file.path)): what to restore. */
  targets: Map<string, Target>;
  /** Folders the dropped turns' writes created, removed when a rewind with files leaves them empty. */
  createdDirs: Array<{ root: string | undefined; path: string }>;
}

const keyOf = (root: string | undefined, rel: string) => `${root ?? ''}\u0000${rel}`;

const sha256 = (data: Buffer | null) => (data ? createHash('sha256').update(data).digest('hex') : null);

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
  const targets = new Map<string, Target>();
  const createdDirs: Plan['createdDirs'] = [];
  for (const c of dropped) {
    const key = keyOf(c.root, c.path);
    const t = targets.get(key);
    if (t) t.lastAfter = c.after;
    else targets.set(key, { root: c.root, path: c.path, before: c.before, lastAfter: c.after });
    for (const d of c.createdDirs ?? []) createdDirs.push({ root: c.root, path: d });
  }
  const state = store.get(sessionId);
  const located = new SessionFiles(state, store.layout);
  const blobs = new BlobStore(store.layout.blobsDir(dir));
  const files: FileRewind[] = [];
  const refused: string[] = [];
  const usable = new Map<string, Target>();
  for (const t of targets.values()) {
    const file = located.locate(t.root, t.path);
    let current: Buffer | null;
    try {
      if ('refused' in file) throw new Error(file.refused);
      current = currentBytes(file, t.path);
    } catch (err) {
      refused.push((err as Error).message);
      continue;
    }
    const root = t.root ?? state.workspaceDir;
    usable.set(keyOf(root, t.path), t);
    const restored = t.before ? blobs.get(t.before) : null;
    const action = t.before === null ? 'delete' : current === null ? 'recreate' : 'restore';
    files.push({ path: t.path, root, action, ...lineDelta(current, restored), changedOutside: sha256(current) !== t.lastAfter });
  }
  const commands: string[] = [];
  for (const m of history.messages) {
    if (m.turn < toTurn || m.message.role !== 'assistant') continue;
    for (const b of m.message.content) if (b.type === 'toolCall' && b.name === 'bash') commands.push(String((b.arguments as { command?: unknown }).command ?? ''));
  }
  const turnsDropped = history.turnBegins.filter((b) => b.turn >= toTurn).length;
  return { preview: { toTurn, messageId, text: promptText(target.message), turnsDropped, files, commands, refused }, targets: usable, createdDirs };
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
export async function rewindSession(store: SessionStore, sessionId: string, messageId: string, options: { files: boolean; confirmOutside?: boolean; leaseHeld?: boolean }): Promise<RewindResult> {
  return withLease(store, sessionId, options.leaseHeld, () => rewindHeld(store, sessionId, messageId, options));
}

/** Runs `fn` holding the session's writer lease (unless the caller, an open Session, holds it). */
async function withLease<T>(store: SessionStore, sessionId: string, held: boolean | undefined, fn: () => Promise<T>): Promise<T> {
  if (held) return fn();
  const dir = store.locate(sessionId);
  const lease = WriterLease.acquire(store.layout.writerLock(dir));
  try {
    await finishPending(store, dir);
    return await fn();
  } finally {
    lease.release();
  }
}

async function rewindHeld(store: SessionStore, sessionId: string, messageId: string, options: { files: boolean; confirmOutside?: boolean }): Promise<RewindResult> {
  const { preview, targets, createdDirs } = plan(store, sessionId, messageId);
  const dir = store.locate(sessionId);
  const blobs = new BlobStore(store.layout.blobsDir(dir));
  const state = store.get(sessionId);
  const located = new SessionFiles(state, store.layout);
  const restored: RestoredFile[] = [];
  const skipped: string[] = [];
  if (options.files) {
    for (const file of preview.files) {
      if (file.changedOutside && !options.confirmOutside) {
        skipped.push(file.path);
        continue;
      }
      const target = targets.get(keyOf(file.root, file.path))!;
      const at = located.locate(target.root, file.path);
      if ('refused' in at) continue; // checked a moment ago in the plan; the journal checks again
      const current = currentBytes(at, file.path);
      const was = current ? blobs.put(current) : null;
      restored.push({ path: file.path, ...(target.root ? { root: target.root } : {}), was, now: target.before });
    }
  }
  // Journaled: a crash part-way is finished by the next process that opens the session.
  await runPending(store, dir, {
    op: 'rewind', workspaceDir: state.workspaceDir, turnCount: preview.toTurn - 1,
    records: [{ t: 'rewind', toTurn: preview.toTurn, messageId, files: options.files, ...({ restored } as object) } as NewRecord],
    files: restored.map((r) => ({ path: r.path, ...(r.root ? { root: r.root } : {}), from: r.was, to: r.now })),
    ...(options.files && createdDirs.length ? { emptyFolders: createdDirs.map((d) => ({ path: d.path, ...(d.root ? { root: d.root } : {}) })) } : {}),
  });
  return { ...preview, restored: restored.map((r) => r.path), skipped };
}

/**
 * Undoes the last rewind when nothing happened since: the dropped records are appended again (the
 * log only grows) and the files it restored get the images they had just before it.
 */
export async function undoRewind(store: SessionStore, sessionId: string, options: { leaseHeld?: boolean } = {}): Promise<{ turns: number; files: string[] }> {
  return withLease(store, sessionId, options.leaseHeld, () => undoHeld(store, sessionId));
}

async function undoHeld(store: SessionStore, sessionId: string): Promise<{ turns: number; files: string[] }> {
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
    files: restored.map((f) => ({ path: f.path, ...(f.root ? { root: f.root } : {}), from: f.now, to: f.was })),
  });
  const files = restored.map((f) => f.path);
  return { turns, files };
}
