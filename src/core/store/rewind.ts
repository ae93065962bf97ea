import fs from 'node:fs';
import { errorMessage } from '../errors';
import { sha256Hex } from '../hash';
import { BlobStore, checkpointRemovedNote } from '../format/blobStore';
import { IMPORTED_MESSAGE, isKnown, parseRecordLine, type KnownRecord, type MessageRecord, type NewRecord, type WireRecord } from '../wire/records';
import { replay, type History } from '../wire/replay';
import { readWireLog } from '../wire/wireReader';
import type { StoreContext } from './storeContext';
import { finishPending, runPending, type RowAfter } from './pendingRewind';
import { droppedCommands } from './rewindCommands';
import { currentBytes, placedRoot, SessionFiles } from './sessionFiles';
import { promptText } from '../format/messageText';
import { applyRecord, factsOf, type LogFold } from '../format/logFold';
import { readState, type SessionState } from '../format/sessionState';
import { summarize, type SessionSummary } from '../format/summary';
import { statMtime } from '../fs/probe';
import { readDroppedTurns } from './rewindTail';
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
  /** The index row once the rewind's records are appended, when the fold could be taken apart without reading the whole log. */
  derive?: RowAfter;
  /** Per file of the preview (by keyOf(file.root, file.path)): what to restore. */
  targets: Map<string, Target>;
  /** Folders the dropped turns' writes created, removed when a rewind with files leaves them empty. */
  createdDirs: Array<{ root: string | undefined; path: string }>;
}

const keyOf = (root: string | undefined, rel: string) => `${root ?? ''}\u0000${rel}`;

/** A file whose image the rewind needs was removed by `braid gc`: it is left as it is. */

/** What a plan needs of the log: the prompt, the dropped turns' file changes and shell calls, and how many of them began. */
interface DroppedPart {
  readonly state: SessionState;
  readonly target: MessageRecord;
  readonly history: Pick<History, 'messages' | 'fileChanges'>;
  readonly turnsDropped: number;
  /** Of those, the turns imported from another agent. */
  readonly importedTurns: number;
  readonly openTurn: number | null;
  readonly restoredAlready?: Set<string>;
  readonly derive?: RowAfter;
}

/**
 * The part of the log a rewind to `messageId` drops: read from the end back to the prompt when
 * the session's summary allows (readDroppedTurns), else from the whole log.
 */
function droppedPart(store: StoreContext, sessionId: string, messageId: string): DroppedPart {
  const dir = store.locate(sessionId);
  const summary = store.summaryAt(dir);
  const tail = readDroppedTurns(store.layout.agentLog(dir), summary, messageId);
  if (tail) {
    const derive = deriveRow(store, dir, summary, tail.fold, tail.logBytes);
    const history = { messages: tail.messages, fileChanges: tail.fileChanges };
    return {
      state: summary.state,
      target: tail.prompt,
      history,
      turnsDropped: tail.turnsBegun,
      importedTurns: tail.importedTurns,
      openTurn: factsOf(summary.fold).openTurn,
      derive,
    };
  }
  const { history, restoredAlready } = historyToRewind(readWireLog(store.layout.agentLog(dir)).records, sessionId, messageId);
  const target = history.messages.find((m) => m.id === messageId)!;
  const turnsDropped = restoredAlready ? 0 : history.turnBegins.filter((b) => b.turn >= target.turn).length;
  const imported = history.messages.filter((m) => m.turn >= target.turn && m.message.role === 'user' && m.id.startsWith(IMPORTED_MESSAGE));
  const importedTurns = restoredAlready ? 0 : new Set(imported.map((m) => m.turn)).size;
  return { state: summary.state, target, history, turnsDropped, importedTurns, openTurn: history.openTurn, ...(restoredAlready ? { restoredAlready } : {}) };
}

/** The row from `kept` (the fold without the dropped turns) and the records the rewind appended, when the log was as read. */
function deriveRow(store: StoreContext, dir: string, summary: SessionSummary, kept: LogFold, logBytes: number): RowAfter {
  return (appended, before, after) => {
    if (before !== logBytes) return undefined;
    const fold = { ...kept };
    // Folded as a reader will read them back, as the writer folds what it appends.
    for (const r of appended) {
      const read = parseRecordLine(JSON.stringify(r));
      if ('record' in read) applyRecord(fold, read.record);
    }
    const stateFile = store.layout.stateFile(dir);
    try {
      return summarize(readState(stateFile), fold, summary.state.agents, after, statMtime(stateFile) ?? 0);
    } catch {
      return undefined; // a broken state.json: the folder is read again, which repairs it
    }
  };
}

function plan(store: StoreContext, sessionId: string, messageId: string): Plan {
  const { state, target, history, turnsDropped, importedTurns, openTurn, restoredAlready, derive } = droppedPart(store, sessionId, messageId);
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
  };
  return { preview, state, targets: usable, createdDirs, ...(derive ? { derive } : {}) };
}

/**
 * The history a rewind to `messageId` works on: the current one when the message is in it. When
 * the session's last rewind (with nothing since) went to that message, the history before that
 * rewind, with the files it and its follow-ups restored already: rewinding again restores only
 * what they left (`--confirm-outside` after a rewind that skipped files), no undo needed first.
 */
function historyToRewind(records: WireRecord[], sessionId: string, messageId: string): { history: History; restoredAlready?: Set<string> } {
  const history = replay(records);
  if (history.messages.some((m) => m.id === messageId)) return { history };
  const last = lastRewind(records);
  if (!('first' in last) || last.rewinds[0]!.messageId !== messageId) {
    throw new RewindError(`message ${messageId} is not in the conversation of ${sessionId} (it may have been rewound already)`);
  }
  const restoredAlready = new Set(last.rewinds.flatMap((r) => (r.restored ?? []).map((f) => keyOf(f.root, f.path))));
  return { history: replay(records.slice(0, last.first)), restoredAlready };
}

/** A rewind record as written: the files it restored; `followUp` when it restored files the rewind before it left. */
interface WrittenRewind {
  readonly t: 'rewind';
  readonly toTurn: number;
  readonly messageId: string;
  readonly restored?: RestoredFile[];
  readonly followUp?: boolean;
}

/**
 * The session's last rewind (its record and the follow-ups after it, oldest first) when nothing
 * happened since; otherwise why there is none to build on.
 */
function lastRewind(records: WireRecord[]): { first: number; rewinds: WrittenRewind[] } | { none: 'never' | 'went-on' | 'undone' } {
  const rewinds: WrittenRewind[] = [];
  let first = -1;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (r.t === 'rewind' && isKnown(r)) {
      rewinds.unshift(r as unknown as WrittenRewind);
      first = i;
      if (!rewinds[0]!.followUp) break;
    } else if (r.t === 'turn_begin' || r.t === 'message') {
      if (rewinds.length === 0) return { none: whyNoRewind(records, i) };
      break; // a follow-up always comes right after its rewind; nothing to look for before this
    }
  }
  return first < 0 ? { none: 'never' } : { first, rewinds };
}

/** Why a session whose records after index `after` went on has no rewind to build on: never rewound, its last rewind undone, or turns since. */
function whyNoRewind(records: WireRecord[], after: number): 'never' | 'went-on' | 'undone' {
  let rewindAt = -1;
  for (let i = after; i >= 0 && rewindAt < 0; i--) if (records[i]!.t === 'rewind') rewindAt = i;
  if (rewindAt < 0) return 'never';
  // An undo appends the dropped records again, so the first message after the rewind is one seen before it.
  const next = records.slice(rewindAt + 1).find((r): r is MessageRecord => r.t === 'message' && isKnown(r));
  const seen = next && records.slice(0, rewindAt).some((r) => r.t === 'message' && (r as MessageRecord).id === next.id);
  return seen ? 'undone' : 'went-on';
}

/** What a rewind to `messageId` would do, without doing it. */
export function previewRewind(store: StoreContext, sessionId: string, messageId: string): RewindPreview {
  return plan(store, sessionId, messageId).preview;
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
  options: { files: boolean; confirmOutside?: boolean; fence?: () => void },
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
  options: { files: boolean; confirmOutside?: boolean },
  fence: () => void,
): Promise<RewindResult> {
  const { preview, state, targets, createdDirs, derive } = plan(store, sessionId, messageId);
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
 * Undoes the last rewind when nothing happened since: the dropped records are appended again (the
 * log only grows) and the files it restored get the images they had just before it.
 */
export async function undoRewind(store: StoreContext, sessionId: string, options: { fence?: () => void } = {}): Promise<UndoResult> {
  return withLease(store, sessionId, options.fence, (fence) => undoHeld(store, sessionId, fence));
}

async function undoHeld(store: StoreContext, sessionId: string, fence: () => void): Promise<UndoResult> {
  const dir = store.locate(sessionId);
  const logFile = store.layout.agentLog(dir);
  const records = readWireLog(logFile).records;
  const found = lastRewind(records);
  if ('none' in found) throw new RewindError(NO_UNDO[found.none](sessionId));
  const last = found.first;
  const rewind = found.rewinds[0]!;
  // The records the rewind dropped, as they were: the effective ones of turns >= toTurn.
  const scoped: KnownRecord[] = [];
  for (const r of records.slice(0, last)) {
    if (!isKnown(r)) continue;
    if (r.t === 'rewind') {
      for (let j = scoped.length - 1; j >= 0; j--) if ((scoped[j] as { turn: number }).turn >= r.toTurn) scoped.splice(j, 1);
    } else if ('turn' in r && typeof (r as { turn: unknown }).turn === 'number') scoped.push(r);
  }
  const again = scoped
    .filter((r) => (r as { turn: number }).turn >= rewind.toTurn)
    .map((r) => {
      const { v: _v, ts: _ts, ...rest } = r as KnownRecord & Record<string, unknown>;
      return rest as unknown as NewRecord;
    });
  const turns = new Set(again.map((r) => (r as { turn: number }).turn)).size;
  // Every file the rewind and its follow-ups restored, the latest first, gets its image from just before.
  const blobs = new BlobStore(store.layout.blobsDir(dir));
  const all = found.rewinds
    .slice()
    .reverse()
    .flatMap((r) => r.restored ?? []);
  // A file whose image from before the rewind braid gc removed is left as it is, and named.
  const gone = all.filter((f) => f.was !== null && !fs.existsSync(blobs.pathOf(f.was)));
  const restored = all.filter((f) => !gone.includes(f));
  await runPending(
    store,
    dir,
    {
      op: 'undo',
      workspaceDir: store.get(sessionId).workspaceDir,
      records: again,
      files: restored.map((f) => ({ path: f.path, ...(f.root ? { root: f.root } : {}), from: f.now, to: f.was })),
    },
    fence,
  );
  const files = restored.map((f) => f.path);
  return { turns, files, ...(gone.length ? { checkpointsRemoved: gone.map((f) => checkpointRemovedNote(f.path)) } : {}) };
}
