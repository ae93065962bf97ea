import fs from 'node:fs';
import path from 'node:path';
import type { Message } from '@mariozechner/pi-ai';
import { counted } from '../counted';
import { fsyncDir } from '../fs/atomic';
import { safeReaddir, statMtime, statSize } from '../fs/probe';
import { newMessageId, newSessionId } from '../ids';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import { closeOpenToolCalls } from '../wire/toolCalls';
import { readNewestPage } from '../wire/newestPage';
import { isKnown, type ForkedRecord, type NewRecord } from '../wire/records';
import { replay } from '../wire/replay';
import { readWireLog, scanWireLog } from '../wire/wireReader';
import { WireLogWriter } from '../wire/wireLog';
import { writeState, type SessionKind, type SessionState, type StoredState } from '../format/sessionState';
import type { StoreContext } from './storeContext';
import { cutTitle, forkTitle, sessionLabel } from '../format/titles';

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

/** Where a record sits in a main log: the byte offset and its time. */
interface LogPoint {
  readonly offset: number;
  readonly ts: number;
}

/**
 * A structural scan of a main log's first `end` bytes (turn boundaries and rewinds, messages not
 * parsed): where each effective turn ends (the byte after its `turn_end`) and where the turn
 * still open begins (its `turn_begin`), if one is.
 */
function scanTurns(logFile: string, end?: number): { ends: Map<number, LogPoint>; open: (LogPoint & { turn: number }) | undefined } {
  const ends = new Map<number, LogPoint>();
  const begun = new Map<number, LogPoint>();
  scanWireLog(
    logFile,
    (record, offset, length) => {
      if (!isKnown(record)) return;
      if (record.t === 'rewind') {
        for (const t of [...ends.keys()]) if (t >= record.toTurn) ends.delete(t);
        for (const t of [...begun.keys()]) if (t >= record.toTurn) begun.delete(t);
      } else if (record.t === 'turn_begin') begun.set(record.turn, { offset, ts: record.ts });
      else if (record.t === 'turn_end') ends.set(record.turn, { offset: offset + length + 1, ts: record.ts });
    },
    { only: ['turn_begin', 'turn_end', 'rewind'], ...(end !== undefined ? { end } : {}) },
  );
  const openTurns = [...begun.keys()].filter((t) => !ends.has(t)).sort((a, b) => a - b);
  const first = openTurns[0];
  return { ends, open: first === undefined ? undefined : { turn: first, ...begun.get(first)! } };
}

/**
 * Where effective turn `turn` ends in a main log: the byte just after its `turn_end` record. An
 * append-only log never changes below that point, so the prefix can be copied while the source
 * session keeps running. Returns undefined when the turn has begun but not ended.
 */
export function turnEndOffset(logFile: string, turn: number): LogPoint | undefined | 'no-such-turn' {
  const { ends, open } = scanTurns(logFile);
  if (ends.has(turn)) return ends.get(turn);
  return open?.turn === turn ? undefined : 'no-such-turn';
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

function forkCut(sourceId: string, mainLog: string, turnCount: number, turn: number | undefined): ForkCut {
  // Bounded by the size seen now, so records the running writer appends during the fork are never read.
  const now = Date.now();
  const size = statSize(mainLog);
  const { ends, open } = scanTurns(mainLog, size);
  if (turn !== undefined) {
    const end = ends.get(turn);
    if (end) return { bytes: end.offset, before: end.ts + 1, leftOutTurn: null };
    if (open?.turn === turn) throw new ForkError(`turn ${turn} of ${sourceId} is still running; fork at turn ${turn - 1} or wait for it to end`);
    throw new ForkError(`session ${sourceId} has no turn ${turn}; it has ${counted(turnCount, 'turn')}`);
  }
  // Idle: everything written up to now (a turn that begins meanwhile is not copied, nor its subagents).
  if (!open) return { bytes: completeBytes(mainLog, size), before: now + 1, leftOutTurn: null };
  // A whole fork takes the ended turns only: the log up to the running turn's turn_begin keeps
  // everything before it (turns, rewinds, compactions) and nothing of the turn half written.
  return { bytes: open.offset, before: open.ts, leftOutTurn: open.turn };
}

/**
 * The `from` of the first `forked` record at or after `offset` in a main log, if any. A fork's
 * log is its source's log, a `forked` record, then its own records, so the records just before
 * `offset` are that session's: a copy cut there must say so again (see the usage calls of replay).
 */
function forkedFromAfter(logFile: string, offset: number): ForkedRecord['from'] | undefined {
  let from: ForkedRecord['from'] | undefined;
  scanWireLog(
    logFile,
    (record) => {
      if (from === undefined && isKnown(record) && record.t === 'forked') from = record.from;
    },
    { start: offset, only: ['forked'] },
  );
  return from;
}

/** Copies the first `bytes` of a file (a prefix of complete lines). */
function copyPrefix(from: string, to: string, bytes: number): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const src = fs.openSync(from, 'r');
  const dst = fs.openSync(to, 'w');
  try {
    const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
    for (let pos = 0; pos < bytes;) {
      const n = fs.readSync(src, buffer, 0, Math.min(buffer.length, bytes - pos), pos);
      if (n === 0) break;
      fs.writeSync(dst, buffer, 0, n);
      pos += n;
    }
    fs.fsyncSync(dst);
  } finally {
    fs.closeSync(src);
    fs.closeSync(dst);
  }
}

/** The size of a log's first `end` bytes up to its last complete line (a torn tail is not copied). */
function completeBytes(file: string, end: number): number {
  const report = scanWireLog(file, () => undefined, { end });
  return report.tornTail ? report.bytes - report.tornBytes : report.bytes;
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
function shareBlobs(from: string, to: string): void {
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
  const source = store.get(sourceId);
  const mainLog = layout.agentLog(sourceDir);
  const cut = forkCut(sourceId, mainLog, source.turnCount, options.turn);
  const inheritedFrom = forkedFromAfter(mainLog, cut.bytes);
  const id = newSessionId();
  const partial = layout.partialDir(source.workspaceKey, id);
  fs.mkdirSync(partial, { recursive: true });
  try {
    const newMain = layout.agentLog(partial);
    copyPrefix(mainLog, newMain, cut.bytes);
    const kept = replay(readWireLog(newMain, { only: ['turn_begin', 'turn_end', 'rewind', 'usage', 'agent', 'forked'] }).records);
    const turn = kept.nextTurn - 1;
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
    records.push(...(options.extra?.(turn + 1) ?? []));
    records.push(forked);
    await main.append(records, { durable: true });
    await main.close();
    shareBlobs(layout.blobsDir(sourceDir), layout.blobsDir(partial));

    const state: StoredState = {
      v: 2,
      id,
      workspaceKey: source.workspaceKey,
      workspaceDir: source.workspaceDir,
      ...(source.workspaceFolders ? { workspaceFolders: source.workspaceFolders } : {}),
      createdAt: Date.now(),
      title:
        options.title ??
        forkTitle(sessionLabel(store.index.get(sourceId) ?? source), from.turn, new Set(store.index.forkTitles(source.workspaceKey, sourceId))),
      titleSource: 'user',
      kind: options.kind ?? source.kind,
      visibility: options.visibility ?? 'visible',
      archived: false,
      forkedFrom: from,
      queue: [],
      paused: null,
    };
    writeState(layout.stateFile(partial), state);
    fsyncDir(partial);
    // Publish: one rename makes the whole session appear at once.
    const finalDir = layout.sessionDir(source.workspaceKey, id);
    fs.renameSync(partial, finalDir);
    fsyncDir(path.dirname(finalDir));
    const summary = store.index.rereadFolder(finalDir);
    if (!summary) throw new ForkError(`the fork ${id} could not be read back after it was written`);
    return { ...summary.state, leftOutTurn: cut.leftOutTurn };
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw err;
  }
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
      if (now - (statMtime(full) ?? 0) < STALE_PARTIAL_MS) continue;
      fs.rmSync(full, { recursive: true, force: true });
      swept.push(full);
    }
  }
  if (swept.length) store.logger.info(`removed ${counted(swept.length, 'unfinished fork folder')}`);
  return swept;
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
            { type: 'text', text: `<system-reminder>\n${SIDE_BOUNDARY_NOTE}\n</system-reminder>` },
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
