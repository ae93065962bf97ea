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
import { parseRecordLine, type ForkedRecord, type NewRecord, type TurnEndRecord } from '../wire/records';
import { scanWireLog } from '../wire/wireReader';
import { WireLogWriter } from '../wire/wireLog';
import { applyRecord, type LogFold } from '../format/logFold';
import { writeState, type SessionKind, type SessionState, type StoredState, type WorktreeLocation } from '../format/sessionState';
import { readAgents, summarize, type SessionSummary } from '../format/summary';
import { goneMeanwhile } from './errors';
import type { StoreContext } from './storeContext';
import { chainTitles } from './forkTitles';
import { carriedUndos } from './forkUndos';
import { copyAndFold, copyPrefix, scanTurnBounds, type LogPoint, type TurnBounds } from './forkCopy';
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
 * Where effective turn `turn` ends in a main log: the byte just after its `turn_end` record. An
 * append-only log never changes below that point, so the prefix can be copied while the source
 * session keeps running. Returns undefined when the turn has begun but not ended.
 */
export function turnEndOffset(logFile: string, turn: number): LogPoint | undefined | 'no-such-turn' {
  const bounds = scanTurnBounds(logFile, 0, statSize(logFile));
  if (bounds.ends.has(turn)) return bounds.ends.get(turn);
  return bounds.open()?.turn === turn ? undefined : 'no-such-turn';
}

/**
 * Where a fork cuts the source: the main log's byte prefix to copy, the time before which
 * subagent records are kept, and the turn in flight left out of a whole fork (null: none).
 */
interface ForkCut {
  readonly bytes: number;
  readonly before: number;
  readonly leftOutTurn: number | null;
}

/** The main log of a fork, copied and folded: where it was cut, the fold of the copy, and the `forked` record the cut left out. */
interface ForkedLog {
  readonly cut: ForkCut;
  readonly fold: LogFold;
  /** The turn boundaries of the copy. */
  readonly bounds: TurnBounds;
  readonly inheritedFrom: ForkedRecord['from'] | undefined;
}

/**
 * Copies the source's main log up to the cut into the open file `dst`, folding it on the way.
 * Mostly one read of the prefix: at turn N the copy stops after N's `turn_end`, and the rest of
 * the log is read only when the source's summary cannot vouch that no later rewind drops that
 * turn and no `forked` record follows; a whole fork of an idle session copies everything written
 * up to now. Otherwise (a rewind moved turn N, a running turn left out of a whole fork) the cut is
 * found first and the copy made again.
 */
function copyMainLog(sourceId: string, mainLog: string, dst: number, source: SessionSummary, turn: number | undefined): ForkedLog {
  // Bounded by the size seen now, so records the running writer appends during the fork are never read.
  const now = Date.now();
  const size = statSize(mainLog);
  const first = copyAndFold(mainLog, dst, size, turn === undefined ? undefined : (r) => r.t === 'turn_end' && (r as TurnEndRecord).turn === turn);
  if (turn !== undefined && first.stopped) {
    const end = first.bounds.ends.get(turn)!;
    const rest = restOfLog(mainLog, source, first.bounds, end.offset, size);
    if (!movedLater(rest, turn)) {
      return {
        cut: { bytes: end.offset, before: end.ts + 1, leftOutTurn: null },
        fold: first.fold,
        bounds: first.bounds,
        inheritedFrom: rest.forkedFromAfter(end.offset),
      };
    }
  }
  if (turn === undefined && !first.bounds.open()) {
    // Idle: everything written up to now (a turn that begins meanwhile is not copied, nor its subagents).
    return { cut: { bytes: first.bytes, before: now + 1, leftOutTurn: null }, fold: first.fold, bounds: first.bounds, inheritedFrom: undefined };
  }
  const bounds = scanTurnBounds(mainLog, 0, size);
  const cut = forkCut(sourceId, bounds, source.state.turnCount, turn);
  fs.ftruncateSync(dst, 0);
  const again = copyAndFold(mainLog, dst, cut.bytes, () => false);
  return { cut, fold: again.fold, bounds: again.bounds, inheritedFrom: bounds.forkedFromAfter(cut.bytes) };
}

/**
 * The turn boundaries and `forked` records of the main log after `offset`, read only where the
 * source's summary does not already say there are none. It does for its first `logBytes` when
 * its fold counts no more rewinds than the copy met, names no `forked` record, and met its
 * records in turn order (so no turn ends twice).
 */
function restOfLog(mainLog: string, source: SessionSummary, copied: TurnBounds, offset: number, size: number): TurnBounds {
  const { fold, logBytes } = source;
  const vouched = fold.ordered === true && !fold.stale && fold.rewinds === copied.rewinds && fold.forkedFrom === null;
  return scanTurnBounds(mainLog, vouched && offset <= logBytes && logBytes <= size ? logBytes : offset, size);
}

/** Whether what follows the copy moves turn `turn`'s end: a rewind to it or before, or another `turn_end` of it. */
function movedLater(rest: TurnBounds, turn: number): boolean {
  return rest.lowestRewind <= turn || rest.ends.has(turn);
}

/** The highest effective turn that began or ended (0: none): the copy's last turn. */
function lastTurn(bounds: TurnBounds): number {
  let last = 0;
  for (const turn of [bounds.begun.keys(), bounds.ends.keys()].flatMap((keys) => [...keys])) if (turn > last) last = turn;
  return last;
}

/** The cut from the turn boundaries of the whole log (see {@link ForkCut}). */
function forkCut(sourceId: string, bounds: TurnBounds, turnCount: number, turn: number | undefined): ForkCut {
  const open = bounds.open();
  if (turn !== undefined) {
    const end = bounds.ends.get(turn);
    if (end) return { bytes: end.offset, before: end.ts + 1, leftOutTurn: null };
    if (open?.turn === turn) throw new ForkError(`turn ${turn} of ${sourceId} is still running; fork at turn ${turn - 1} or wait for it to end`);
    throw new ForkError(`session ${sourceId} has no turn ${turn}; it has ${counted(turnCount, 'turn')}`);
  }
  // A whole fork takes the ended turns only: the log up to the running turn's turn_begin keeps
  // everything before it (turns, rewinds, compactions) and nothing of the turn half written.
  return { bytes: open!.offset, before: open!.ts, leftOutTurn: open!.turn };
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
    const dst = fs.openSync(newMain, 'w');
    let copied: ForkedLog;
    try {
      copied = copyMainLog(sourceId, mainLog, dst, sourceSummary, options.turn);
    } finally {
      fs.closeSync(dst); // synced with the records appended below
    }
    const { cut, fold, inheritedFrom } = copied;
    const turn = lastTurn(copied.bounds);
    // What was copied: a whole fork that left the running turn out holds the turns up to `turn`.
    const from = { sessionId: sourceId, turn: options.turn ?? (cut.leftOutTurn === null ? null : turn) };
    const forked = { t: 'forked' as const, from };
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
    // The main log: close cut-off tool calls, extra records, then the `forked` record. Tool calls
    // can be left open only at the end, so the newest page of messages is enough to look at.
    const tail = readNewestPage(newMain, 200).messages.map((m) => m.message as Message);
    const closing = closeOpenToolCalls(tail, FORK_OPEN_CALL_TEXT);
    const main = WireLogWriter.open(newMain);
    // A cut inside turns the source inherited drops the source's own `forked` record; it is said
    // again right after the copy, so each copied usage record still names the session that made the call.
    const records: NewRecord[] = inheritedFrom ? [{ t: 'forked', from: inheritedFrom }] : [];
    records.push(...closing.map((message): NewRecord => ({ t: 'message', turn, id: newMessageId(), message })));
    // Undos the source made after the cut put files back for the fork too.
    if (options.turn !== undefined) records.push(...carriedUndos(mainLog, cut.bytes, statSize(mainLog), newMain, turn));
    records.push(...(options.extra?.(turn + 1) ?? []));
    records.push(forked);
    // Folded as a reader will read them back, as the writer folds what it appends.
    for (const written of await main.append(records, { durable: true })) {
      const read = parseRecordLine(JSON.stringify(written));
      if ('record' in read) applyRecord(fold, read.record);
    }
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
