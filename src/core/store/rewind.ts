import fs from 'node:fs';
import { errorMessage } from '../errors';
import { sha256Hex } from '../hash';
import { BlobStore, checkpointRemovedNote } from '../format/blobStore';
import { IMPORTED_MESSAGE, type MessageRecord, type NewRecord } from '../wire/records';
import type { History } from '../wire/replay';
import { readRecordAt } from '../wire/wireReader';
import type { StoreContext } from './storeContext';
import { finishPending, runPending, type RowAfter } from './pendingRewind';
import { droppedCommands } from './rewindCommands';
import { currentBytes, placedRoot, SessionFiles } from './sessionFiles';
import { promptText } from '../format/messageText';
import { factsOf, foldWritten, type LogFold } from '../format/logFold';
import { readState, type SessionState } from '../format/sessionState';
import { summarize, type SessionSummary } from '../format/summary';
import { statMtime } from '../fs/probe';
import { readDroppedRecords, turnOfMessage } from './droppedTurns';
import { readMachineId } from '../format/machineId';
import { WriterLease } from './writerLease';
import { SharedSessionError } from './errors';

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
  /** Shell commands of the dropped turns whose result is unknown (Braid stopped before it came back): they may have run. */
  readonly commandsMayHaveRun: string[];
  /** MCP tool calls of the dropped turns: they may have changed things outside Braid's checkpoints. */
  readonly mcpCalls: string[];
  /**
   * The conversation is already rewound to this prompt (by the session's last rewind, with nothing
   * since): this rewind only restores the files that one left (changed outside Braid, or not asked for).
   */
  readonly alreadyRewound: boolean;
  /** Files the dropped turns' records name that a rewind leaves alone: outside the session's workspace folders, or not regular files. */
  readonly refused: string[];
  /** Dropped turns imported from another agent: Braid has no checkpoints of the files they changed, so only their conversation is rewound. */
  readonly importedTurns: number;
  /** Dropped turns a fork took from a session pulled from a git remote: another machine changed their files, so only their conversation is rewound. */
  readonly pulledTurns: number;
}

export interface RewindResult extends RewindPreview {
  readonly restored: string[];
  /** Files changed outside Braid and left alone (not confirmed). */
  readonly skipped: string[];
}

/** What an undo did: the turns back, the files put back, and those it could not (their checkpoint removed by braid gc). */
export interface UndoResult {
  readonly turns: number;
  readonly files: string[];
  readonly checkpointsRemoved?: string[];
}

/** Why there is no rewind to undo, in words the user can act on. */
const NO_UNDO: Record<'never' | 'went-on' | 'undone', (sessionId: string) => string> = {
  never: (id) => `session ${id} was never rewound, so there is nothing to undo`,
  'went-on': () => 'the session went on after its last rewind, so that rewind cannot be undone; fork it instead',
  undone: (id) => `the last rewind of ${id} was already undone; there is nothing more to undo`,
};

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

/** The lines of a file's image; a final newline ends the last line, it starts none. */
function lineCount(data: Buffer | null): string[] {
  const lines = data ? data.toString('utf8').split('\n') : [];
  if (lines.at(-1) === '') lines.pop();
  return lines;
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
  /** The session as the plan found it. */
  state: SessionState;
  /** The index row once the rewind's records are appended. */
  derive: RowAfter;
  /** Per file of the preview (by keyOf(file.root, file.path)): what to restore. */
  targets: Map<string, Target>;
  /** Folders the dropped turns' writes created, removed when a rewind with files leaves them empty. */
  createdDirs: Array<{ root: string | undefined; path: string }>;
}

const keyOf = (root: string | undefined, rel: string) => `${root ?? ''}\u0000${rel}`;

/** What a plan needs of the log: the prompt, the dropped turns' file changes and shell calls, and how many of them began. */
interface DroppedPart {
  readonly state: SessionState;
  readonly target: MessageRecord;
  readonly history: Pick<History, 'messages' | 'fileChanges'>;
  readonly turnsDropped: number;
  /** Of those, the turns imported from another agent, and those pulled from another machine. */
  readonly importedTurns: number;
  readonly pulledTurns: number;
  readonly openTurn: number | null;
  readonly restoredAlready?: Set<string>;
  readonly derive: RowAfter;
}

/**
 * The part of the log a rewind to `messageId` drops, from the session's turn map: the prompt's
 * turn found from the newest turn back (`hint` first), then the spans of the turns from it on
 * read for what the preview lists. Asked for the prompt the last rewind went to (nothing since),
 * the turns that rewind dropped, less the files it restored already. A session pulled from a git
 * remote is read-only: SharedSessionError, before its preview too.
 */
function droppedPart(store: StoreContext, sessionId: string, messageId: string, hint?: number): DroppedPart {
  const dir = store.locate(sessionId);
  const summary = store.summaryAt(dir);
  if (summary.state.shared) throw new SharedSessionError(summary.state.shared);
  const logFile = store.layout.agentLog(dir);
  const fold = summary.fold;
  const openTurn = factsOf(fold).openTurn;
  const derive = deriveRow(store, dir, summary);
  const last = fold.lastRewind;
  const turn = turnOfMessage(logFile, fold, messageId, hint);
  if (!turn) {
    if (typeof last !== 'object' || last?.messageId !== messageId)
      throw new RewindError(`message ${messageId} is not in the conversation of ${sessionId} (it may have been rewound already)`);
    // Rewound already: the turns that rewind dropped, read as they were before it.
    const before = { ...fold, turns: [...fold.turns, ...last.dropped] };
    const history = readDroppedRecords(logFile, before, last.toTurn, Math.min(...last.records), readMachineId(store.layout.root));
    const target = history.messages.find((m) => m.id === messageId);
    if (!target) throw new RewindError(`message ${messageId} is not in the conversation of ${sessionId} (it may have been rewound already)`);
    const restoredAlready = new Set(restoredBy(logFile, last.records).map((f) => keyOf(f.root, f.path)));
    return { state: summary.state, target, history, turnsDropped: 0, importedTurns: 0, pulledTurns: 0, openTurn, restoredAlready, derive };
  }
  const history = readDroppedRecords(logFile, fold, turn.turn, summary.logBytes, readMachineId(store.layout.root));
  const target = history.messages.find((m) => m.id === messageId)!;
  const dropped = fold.turns.filter((t) => t.turn >= turn.turn);
  const imported = history.messages.filter((m) => m.message.role === 'user' && m.id.startsWith(IMPORTED_MESSAGE));
  return {
    state: summary.state,
    target,
    history,
    turnsDropped: dropped.filter((t) => t.began).length,
    importedTurns: new Set(imported.map((m) => m.turn)).size,
    pulledTurns: history.pulledTurns,
    openTurn,
    derive,
  };
}

/** The files the `rewind` records at `offsets` restored, in order. */
function restoredBy(logFile: string, offsets: readonly number[]): RestoredFile[] {
  const files: RestoredFile[] = [];
  for (const offset of offsets) {
    const record = readRecordAt(logFile, offset) as WrittenRewind | undefined;
    if (record?.t === 'rewind') files.push(...(record.restored ?? []));
  }
  return files;
}

/** The row from the summary's fold and the records appended, when the log was as the summary read it. */
function deriveRow(store: StoreContext, dir: string, summary: SessionSummary): RowAfter {
  return (appended, before, after) => {
    if (before !== summary.logBytes) return undefined;
    const fold = foldWritten(JSON.parse(JSON.stringify(summary.fold)) as LogFold, appended);
    const stateFile = store.layout.stateFile(dir);
    try {
      return summarize(readState(stateFile), fold, summary.state.agents, after, statMtime(stateFile) ?? 0);
    } catch {
      return undefined; // a broken state.json: the folder is read again, which repairs it
    }
  };
}

function plan(store: StoreContext, sessionId: string, messageId: string, hint?: number): Plan {
  const { state, target, history, turnsDropped, importedTurns, pulledTurns, openTurn, restoredAlready, derive } = droppedPart(
    store,
    sessionId,
    messageId,
    hint,
  );
  if (target.message.role !== 'user') throw new RewindError(`message ${messageId} is not a prompt; rewind goes back to one of your messages`);
  if (openTurn !== null) throw new RewindError(`turn ${openTurn} is still running; stop it before rewinding`);
  const dir = store.locate(sessionId);
  const toTurn = target.turn;
  // A root recorded before a move (a relink, the checkout of a worktree fork) is the folder it stands for now: one file, one target.
  const placed = (root: string | undefined) => (root === undefined ? undefined : placedRoot(state, root));
  const dropped = history.fileChanges
    .map((c) => (c.root === undefined ? c : { ...c, root: placed(c.root) }))
    .filter((c) => c.turn >= toTurn && !restoredAlready?.has(keyOf(c.root, c.path)));
  const targets = new Map<string, Target>();
  const createdDirs: Plan['createdDirs'] = [];
  for (const c of dropped) {
    const key = keyOf(c.root, c.path);
    const t = targets.get(key);
    if (t) t.lastAfter = c.after;
    else targets.set(key, { root: c.root, path: c.path, before: c.before, lastAfter: c.after });
    for (const d of c.createdDirs ?? []) createdDirs.push({ root: c.root, path: d });
  }
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
      refused.push(errorMessage(err));
      continue;
    }
    const restored = t.before ? blobs.find(t.before) : null;
    if (restored === undefined) {
      refused.push(checkpointRemovedNote(t.path));
      continue;
    }
    const root = t.root ?? state.workspaceDir;
    usable.set(keyOf(root, t.path), t);
    const action = t.before === null ? 'delete' : current === null ? 'recreate' : 'restore';
    files.push({ path: t.path, root, action, ...lineDelta(current, restored), changedOutside: (current ? sha256Hex(current) : null) !== t.lastAfter });
  }
  const { ran, mayHaveRun, mcpCalls } = droppedCommands(history, toTurn);
  const preview: RewindPreview = {
    toTurn,
    messageId,
    text: promptText(target.message),
    turnsDropped,
    files,
    commands: ran,
    commandsMayHaveRun: mayHaveRun,
    mcpCalls,
    alreadyRewound: restoredAlready !== undefined,
    refused,
    importedTurns,
    pulledTurns,
  };
  return { preview, state, targets: usable, createdDirs, derive };
}

/** A rewind record as written: the files it restored; `followUp` when it restored files the rewind before it left. */
interface WrittenRewind {
  readonly t: 'rewind';
  readonly toTurn: number;
  readonly messageId: string;
  readonly restored?: RestoredFile[];
  readonly followUp?: boolean;
}

/** What a rewind to `messageId` would do, without doing it. */
export function previewRewind(store: StoreContext, sessionId: string, messageId: string, hint?: number): RewindPreview {
  return plan(store, sessionId, messageId, hint).preview;
}

/**
 * Rewinds the conversation to before the prompt `messageId` (docs/architecture.md, Fork, rewind, the lease and recovery): appends a `rewind`
 * record (the dropped records stay in the log). With `files`, restores every file the dropped
 * turns changed to its image before the first dropped change, after saving the current images so
 * `undoRewind` can put them back; files changed outside Braid since are skipped unless
 * `confirmOutside`. Asked again for the prompt the last rewind went to, it restores what that
 * rewind left (a follow-up record; no undo needed first).
 */
export async function rewindSession(
  store: StoreContext,
  sessionId: string,
  messageId: string,
  options: { files: boolean; confirmOutside?: boolean; fence?: () => void; turn?: number },
): Promise<RewindResult> {
  return withLease(store, sessionId, options.fence, (fence) => rewindHeld(store, sessionId, messageId, options, fence));
}

/**
 * Runs `fn` holding the session's writer lease, with the lease's check for every write: an open
 * Session holds it already and passes its `held` fence; otherwise it is taken for the call.
 */
async function withLease<T>(store: StoreContext, sessionId: string, held: (() => void) | undefined, fn: (fence: () => void) => Promise<T>): Promise<T> {
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

async function rewindHeld(
  store: StoreContext,
  sessionId: string,
  messageId: string,
  options: { files: boolean; confirmOutside?: boolean; turn?: number },
  fence: () => void,
): Promise<RewindResult> {
  const { preview, state, targets, createdDirs, derive } = plan(store, sessionId, messageId, options.turn);
  if (preview.alreadyRewound && !options.files)
    throw new RewindError(
      `the conversation of ${sessionId} is already rewound to that prompt; add --files (and --confirm-outside for files changed outside Braid) to restore the files that rewind left`,
    );
  const dir = store.locate(sessionId);
  const blobs = new BlobStore(store.layout.blobsDir(dir));
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
  // A follow-up that restores nothing writes nothing.
  if (!preview.alreadyRewound || restored.length > 0) {
    // Journaled: a crash part-way is finished by the next process that opens the session.
    const followUp = preview.alreadyRewound ? { followUp: true } : {};
    await runPending(
      store,
      dir,
      {
        op: 'rewind',
        workspaceDir: state.workspaceDir,
        records: [{ t: 'rewind', toTurn: preview.toTurn, messageId, files: options.files, ...({ restored, ...followUp } as object) } as NewRecord],
        files: restored.map((r) => ({ path: r.path, ...(r.root ? { root: r.root } : {}), from: r.was, to: r.now })),
        ...(options.files && createdDirs.length ? { emptyFolders: createdDirs.map((d) => ({ path: d.path, ...(d.root ? { root: d.root } : {}) })) } : {}),
      },
      fence,
      derive,
    );
  }
  return { ...preview, restored: restored.map((r) => r.path), skipped };
}

/**
 * Undoes the last rewind when nothing happened since: an `undo_rewind` record makes the turns it
 * dropped effective again (the log grows by that line), and the files it restored get the images
 * they had just before it.
 */
export async function undoRewind(store: StoreContext, sessionId: string, options: { fence?: () => void } = {}): Promise<UndoResult> {
  return withLease(store, sessionId, options.fence, (fence) => undoHeld(store, sessionId, fence));
}

async function undoHeld(store: StoreContext, sessionId: string, fence: () => void): Promise<UndoResult> {
  const dir = store.locate(sessionId);
  const summary = store.summaryAt(dir);
  const last = summary.fold.lastRewind;
  if (typeof last !== 'object' || last === null) throw new RewindError(NO_UNDO[last ?? 'never'](sessionId));
  // Every file the rewind and its follow-ups restored, the latest first, gets its image from just before.
  const blobs = new BlobStore(store.layout.blobsDir(dir));
  const all = restoredBy(store.layout.agentLog(dir), last.records).reverse();
  // A file whose image from before the rewind braid gc removed is left as it is, and named.
  const gone = all.filter((f) => f.was !== null && !fs.existsSync(blobs.pathOf(f.was)));
  const restored = all.filter((f) => !gone.includes(f));
  await runPending(
    store,
    dir,
    {
      op: 'undo',
      workspaceDir: summary.state.workspaceDir,
      records: [{ t: 'undo_rewind', toTurn: last.toTurn }],
      files: restored.map((f) => ({ path: f.path, ...(f.root ? { root: f.root } : {}), from: f.now, to: f.was })),
    },
    fence,
    deriveRow(store, dir, summary),
  );
  const files = restored.map((f) => f.path);
  const turns = last.dropped.filter((t) => t.began).length;
  return { turns, files, ...(gone.length ? { checkpointsRemoved: gone.map((f) => checkpointRemovedNote(f.path)) } : {}) };
}
