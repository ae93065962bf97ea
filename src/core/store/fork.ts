import fs from 'node:fs';
import path from 'node:path';
import type { Message } from '@mariozechner/pi-ai';
import { counted } from '../counted';
import { fsyncDir } from '../fs/atomic';
import { safeReaddir, statMtime, statSize } from '../fs/probe';
import { newMessageId, newSessionId } from '../ids';
import { isWorkspaceKey, workspaceKey } from '../workspace/workspaceKey';
import { closeOpenToolCalls } from '../wire/toolCalls';
import { readNewestPage } from '../wire/newestPage';
import { marksPulled, type ForkedRecord, type NewRecord } from '../wire/records';
import { walkLinesBackward } from '../wire/lineWalk';
import { readRecordAt, scanWireLog } from '../wire/wireReader';
import { WireLogWriter } from '../wire/wireLog';
import { foldWritten, type LogFold, type TurnFacts } from '../format/logFold';
import { writeState, type SessionKind, type SessionState, type StoredState, type WorktreeLocation } from '../format/sessionState';
import { readAgents, summarize, type SessionSummary } from '../format/summary';
import { goneMeanwhile } from './errors';
import type { StoreContext } from './storeContext';
import { chainTitles } from './forkTitles';
import { carriedUndos } from './forkUndos';
import { copyForFork, copyPrefix, type CopiedPrefix } from './forkCopy';
import { cutTitle, forkTitle, sessionLabel } from '../format/titles';
import { reminderBlock } from '../format/reminder';

/** The result given to tool calls a fork cuts off. */
export const FORK_OPEN_CALL_TEXT = 'This tool call was still running when the session was forked; its result is unknown.';

/** Partial folders older than this are another process's abandoned fork. */
const STALE_PARTIAL_MS = 10 * 60 * 1000;

export interface ForkOptions {
  /** Keep the history up to and including this effective turn; the whole session without it. */
  readonly turn?: number;
  readonly title?: string;
  readonly kind?: SessionKind;
  readonly visibility?: 'visible' | 'hidden';
  /** Records appended after the copy, before publishing (a peek's boundary note and exchange). */
  readonly extra?: (turn: number) => NewRecord[];
  /** Where the fork runs when not where its source does (a worktree): its folder, and so its workspace key. */
  readonly place?: { readonly workspaceDir: string; readonly runLocation: WorktreeLocation };
}

/** The new session's state, and the turn a whole fork left out because it was still running (null: none). */
export type ForkedSession = SessionState & { readonly leftOutTurn: number | null };

/** What to tell the user when a whole fork left the running turn out (the CLI and VS Code say the same). */
export function leftOutNote(fork: ForkedSession): string {
  const kept = fork.turnCount === 0 ? 'holds no turn yet' : `holds the ${counted(fork.turnCount, 'turn')} that had ended`;
  return `turn ${fork.leftOutTurn} was still running, so the fork leaves it out and ${kept}`;
}

/** A fork that cannot be made as asked; the message says why and what to do. */
export class ForkError extends Error {
  override readonly name = 'ForkError';
}

/**
 * Where a fork cuts the source: the main log's byte prefix to copy, the last effective turn it
 * keeps (0: none), the time before which subagent records are kept, and the turn in flight left
 * out of a whole fork (null: none).
 */
interface ForkCut {
  readonly bytes: number;
  readonly lastKept: number;
  readonly before: number;
  readonly leftOutTurn: number | null;
}

/**
 * Where a fork cuts the source, from its turn map (docs/architecture.md, Fork, rewind, the lease and recovery): at turn N, after the
 * last record of the turns up to N; whole, everything the summary folded, or, while a turn runs,
 * up to that turn's first record (its subagents' records from its time on are left out too).
 */
function forkCut(sourceId: string, mainLog: string, source: SessionSummary, turn: number | undefined): ForkCut {
  const turns = source.fold.turns;
  const open = turns.find((t) => t.began && t.outcome === null);
  if (turn !== undefined) {
    const at = turns.find((t) => t.turn === turn);
    if (!at || !at.began) throw new ForkError(`session ${sourceId} has no turn ${turn}; it has ${counted(source.state.turnCount, 'turn')}`);
    if (at.outcome === null) throw new ForkError(`turn ${turn} of ${sourceId} is still running; fork at turn ${turn - 1} or wait for it to end`);
    const bytes = endOfTurns(turns, turn);
    return { bytes, lastKept: turn, before: lineTime(mainLog, lastLineBefore(mainLog, bytes)) + 1, leftOutTurn: null };
  }
  if (!open) return { bytes: source.logBytes, lastKept: turns.at(-1)?.turn ?? 0, before: Date.now() + 1, leftOutTurn: null };
  const lastKept = turns.filter((t) => t.turn < open.turn).at(-1)?.turn ?? 0;
  return { bytes: Math.max(open.start, endOfTurns(turns, lastKept)), lastKept, before: lineTime(mainLog, open.start), leftOutTurn: open.turn };
}

/** The byte after the last record of the effective turns up to `turn`. */
function endOfTurns(turns: readonly TurnFacts[], turn: number): number {
  return turns.reduce((end, t) => (t.turn <= turn ? Math.max(end, t.end) : end), 0);
}

/** The offset of the line that ends just before byte `end` (a line start). */
function lastLineBefore(file: string, end: number): number {
  let start = 0;
  const fd = fs.openSync(file, 'r');
  try {
    walkLinesBackward(fd, end, (_buf, _start, _end, offset) => {
      start = offset;
      return false;
    });
  } finally {
    fs.closeSync(fd);
  }
  return start;
}

/** The time of the record whose line starts at `offset` (0 when it cannot be read). */
function lineTime(file: string, offset: number): number {
  return readRecordAt(file, offset)?.ts ?? 0;
}

/** The `from` of the source's first `forked` record after the cut: the session whose calls the copied usage records are. */
function forkedAfter(mainLog: string, fold: LogFold, cut: number): ForkedRecord['from'] | undefined {
  const at = fold.forkedAt.find((offset) => offset >= cut);
  const record = at === undefined ? undefined : readRecordAt(mainLog, at);
  return record?.t === 'forked' ? (record as ForkedRecord).from : undefined;
}

/**
 * Whether the records a fork copies (the source's first `cut` bytes) hold some pulled from another
 * machine that no mark among them says so of: the source is a pulled session, or a fork of one cut
 * before its mark. The fork's own `forked` record then marks them (docs/reference.md, Shared sessions).
 */
function copiesUnmarkedPulled(mainLog: string, source: SessionSummary, cut: number): boolean {
  if (source.state.shared) return true;
  const marks = source.fold.forkedAt.filter((offset) => marksPulledAt(mainLog, offset));
  return marks.length > 0 && cut <= Math.max(...marks);
}

function marksPulledAt(mainLog: string, offset: number): boolean {
  const record = readRecordAt(mainLog, offset);
  return record !== undefined && marksPulled(record);
}

/**
 * The prefix of a subagent log written before `before` (ms): its bytes (complete lines, up to the
 * first record as new, so records are copied as written) and how many messages it holds.
 */
function prefixBefore(file: string, before: number): { bytes: number; messages: number } {
  let bytes = 0;
  let messages = 0;
  let done = false;
  scanWireLog(file, (record, offset, length) => {
    if (done || record.ts >= before) {
      done = true;
      return;
    }
    bytes = offset + length + 1;
    if (record.t === 'message') messages++;
  });
  return { bytes, messages };
}

/** Hard-links (or copies) the content-addressed blobs: they never change, so sharing is safe. */
export function shareBlobs(from: string, to: string): void {
  for (const prefix of safeReaddir(from)) {
    fs.mkdirSync(path.join(to, prefix), { recursive: true });
    for (const name of safeReaddir(path.join(from, prefix))) {
      try {
        fs.linkSync(path.join(from, prefix, name), path.join(to, prefix, name));
      } catch {
        fs.copyFileSync(path.join(from, prefix, name), path.join(to, prefix, name));
      }
    }
  }
}

/**
 * Forks a session (docs/architecture.md, Fork, rewind, the lease and recovery): the copy is built in `.partial-<newId>` beside the sessions of the
 * workspace and published with one rename, so a crash leaves either no new session or a whole
 * one. Whole: every log copied with a `forked` record, but only the ended turns: a turn still
 * running is left out (`leftOutTurn`). At a turn: the main log cut to the byte prefix that ends
 * that effective turn. Subagent logs are cut by time (emptied ones dropped); tool calls left open
 * are closed.
 */
export async function forkSession(store: StoreContext, sourceId: string, options: ForkOptions = {}): Promise<ForkedSession> {
  const layout = store.layout;
  const sourceDir = store.locate(sourceId);
  const sourceSummary = store.summaryAt(sourceDir);
  const source = sourceSummary.state;
  const mainLog = layout.agentLog(sourceDir);
  const id = newSessionId();
  const key = options.place ? workspaceKey(options.place.workspaceDir) : source.workspaceKey;
  const partial = layout.partialDir(key, id);
  const newMain = layout.agentLog(partial);
  fs.mkdirSync(path.dirname(newMain), { recursive: true });
  try {
    const cut = forkCut(sourceId, mainLog, sourceSummary, options.turn);
    const dst = fs.openSync(newMain, 'w');
    let copied: CopiedPrefix;
    try {
      copied = copyForFork(mainLog, dst, cut.bytes, sourceSummary.fold, cut.lastKept);
    } finally {
      fs.closeSync(dst); // synced with the records appended below
    }
    const { fold } = copied;
    const turn = cut.lastKept;
    // What was copied: a whole fork that left the running turn out holds the turns up to `turn`.
    const from = { sessionId: sourceId, turn: options.turn ?? (cut.leftOutTurn === null ? null : turn) };
    const pulled = copiesUnmarkedPulled(mainLog, sourceSummary, cut.bytes);
    const forked = { t: 'forked' as const, from, ...(pulled ? { pulled: true as const } : {}) };
    for (const agent of source.agents.length ? source.agents : [{ id: 'main', parentId: null, title: 'main' }]) {
      if (agent.id === 'main') continue;
      const agentLog = layout.agentLog(sourceDir, agent.id);
      // Subagents of turns the fork leaves out began after the cut: their logs come out empty.
      const prefix = prefixBefore(agentLog, cut.before);
      if (prefix.messages === 0) continue;
      const to = layout.agentLog(partial, agent.id);
      copyPrefix(agentLog, to, prefix.bytes);
      const log = WireLogWriter.open(to);
      await log.append(forked, { durable: true });
      await log.close();
    }
    const main = WireLogWriter.open(newMain);
    // The source undid, after the cut, a rewind of kept turns the copy ends with: the fork undoes it
    // first, so the conversation read below and the Changes list read for carried undos hold those turns.
    if (copied.undo) foldWritten(fold, await main.appendLines([copied.undo]));
    // The main log: close cut-off tool calls, extra records, then the `forked` record. Tool calls
    // can be left open only at the end, so the newest page of messages is enough to look at.
    const tail = readNewestPage(newMain, 200).messages.map((m) => m.message as Message);
    const closing = closeOpenToolCalls(tail, FORK_OPEN_CALL_TEXT);
    // A cut inside turns the source inherited drops the source's own `forked` record; it is said
    // again right after the copy, so each copied usage record still names the session that made the call.
    const inheritedFrom = forkedAfter(mainLog, sourceSummary.fold, cut.bytes);
    const records: NewRecord[] = inheritedFrom ? [{ t: 'forked', from: inheritedFrom }] : [];
    // A log not written in turn order holds records of later turns before the cut: the fork drops them as a rewind does.
    if (copied.beyond) records.push({ t: 'rewind', toTurn: turn + 1, messageId: '', files: false });
    records.push(...closing.map((message): NewRecord => ({ t: 'message', turn, id: newMessageId(), message })));
    // Undos the source made after the cut put files back for the fork too (the fold says where they lie; the log may have grown since).
    const size = statSize(mainLog);
    const undosAfter = sourceSummary.fold.changeUndosAt.some((offset) => offset >= cut.bytes) || size > sourceSummary.logBytes;
    if (options.turn !== undefined && undosAfter) records.push(...carriedUndos(mainLog, cut.bytes, size, newMain, turn));
    records.push(...(options.extra?.(turn + 1) ?? []));
    records.push(forked);
    foldWritten(fold, await main.appendLines(records, { durable: true }));
    const logBytes = main.bytes;
    await main.close();
    shareBlobs(layout.blobsDir(sourceDir), layout.blobsDir(partial));

    const state: StoredState = {
      v: 2,
      id,
      workspaceKey: key,
      ...(options.place
        ? { workspaceDir: options.place.workspaceDir, workspaceFolders: [options.place.workspaceDir], runLocation: options.place.runLocation }
        : {
            workspaceDir: source.workspaceDir,
            ...(source.workspaceFolders ? { workspaceFolders: source.workspaceFolders } : {}),
            ...(source.runLocation ? { runLocation: source.runLocation } : {}),
          }),
      createdAt: Date.now(),
      title: options.title ?? forkTitle(sessionLabel(store.index.get(sourceId) ?? source), from.turn, chainTitles(store, source.workspaceKey, sourceId)),
      titleSource: 'user',
      kind: options.kind ?? source.kind,
      visibility: options.visibility ?? 'visible',
      archived: false,
      forkedFrom: from,
      queue: [],
      paused: null,
    };
    const finalDir = publishFork(layout, partial, state);
    // The row from the fold of what was copied and appended: the copy is never read back.
    const summary = summarize(state, fold, readAgents(finalDir), logBytes, statMtime(layout.stateFile(finalDir)) ?? 0);
    store.index.putSummary(id, summary);
    return { ...summary.state, leftOutTurn: cut.leftOutTurn };
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw goneMeanwhile(err, sourceDir);
  }
}

/** Writes a new session's state.json in its partial folder and publishes it: one rename makes the whole session appear at once. Returns its folder. */
export function publishFork(layout: StoreContext['layout'], partial: string, state: StoredState): string {
  writeState(layout.stateFile(partial), state);
  fsyncDir(partial);
  const finalDir = layout.sessionDir(state.workspaceKey, state.id);
  fs.renameSync(partial, finalDir);
  fsyncDir(path.dirname(finalDir));
  return finalDir;
}

/** Removes `.partial-*` folders that an interrupted fork left (older than 10 minutes), in one workspace or every one. */
export function sweepPartials(store: StoreContext, onlyWorkspace?: string, now = Date.now()): string[] {
  const swept: string[] = [];
  const keys = onlyWorkspace ? [onlyWorkspace] : safeReaddir(store.layout.sessionsDir).filter(isWorkspaceKey);
  for (const workspaceKey of keys) {
    const dir = store.layout.workspaceDir(workspaceKey);
    for (const name of safeReaddir(dir)) {
      if (!name.startsWith('.partial-')) continue;
      const full = path.join(dir, name);
      if (now - (statMtime(full) ?? 0) < STALE_PARTIAL_MS || builderAlive(name)) continue;
      fs.rmSync(full, { recursive: true, force: true });
      swept.push(full);
    }
  }
  if (swept.length) store.logger.info(`removed ${counted(swept.length, 'unfinished fork folder')}`);
  return swept;
}

/** Whether the process that builds a partial folder named `.partial-<id>.<pid>.<tag>` (an import's) still runs: a long import is not swept from under it. */
export function builderAlive(name: string): boolean {
  const pid = Number(/^\.partial-[^.]+\.(\d+)\.[0-9a-f]+$/.exec(name)?.[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/** The note that opens a kept side conversation (docs/reference.md, Turns and prompts). */
export const SIDE_BOUNDARY_NOTE =
  'Side conversation boundary. Everything before this boundary is inherited history from the parent session. It is reference context only. It is not your current task.';

/**
 * Keeps a side question as a fork of kind `peek`: the whole parent history, then a turn whose
 * prompt carries the boundary note before the question, and the answer.
 */
export async function keepSideQuestion(
  store: StoreContext,
  sessionId: string,
  question: string,
  answer: import('@mariozechner/pi-ai').AssistantMessage,
): Promise<SessionState> {
  return forkSession(store, sessionId, {
    kind: 'peek',
    title: `Side: ${cutTitle(question)}`,
    extra: (turn) => [
      { t: 'turn_begin', turn, promptId: `side-${Date.now()}`, model: { provider: answer.provider, id: answer.model, thinking: 'off' } },
      {
        t: 'message',
        turn,
        id: newMessageId(),
        message: {
          role: 'user',
          content: [
            { type: 'text', text: reminderBlock(SIDE_BOUNDARY_NOTE) },
            { type: 'text', text: question },
          ],
          timestamp: Date.now(),
        },
      },
      { t: 'message', turn, id: newMessageId(), message: answer },
      { t: 'turn_end', turn, outcome: 'completed' },
    ],
  });
}
