import type { Message } from '@mariozechner/pi-ai';
import { newMessageId } from '../ids';
import {
  type CompactionRecord,
  type KnownRecord,
  type InjectedContext,
  type MemoryFact,
  type MemoryRecord,
  type MessageRecord,
  type ModelSnapshot,
  type TurnBeginRecord,
  type NewRecord,
  type TurnOutcome,
  type UsageRecord,
} from '../wire/records';
import { WireLogWriter } from '../wire/wireLog';
import { finishPending } from './pendingRewind';
import { isDead, WriterLease } from './writerLease';
import { readContextTail } from '../wire/contextTail';
import path from 'node:path';
import fs from 'node:fs';
import type { History } from '../wire/replay';
import type { TurnMode } from '../wire/turnMode';
import { factsOf, foldWritten } from '../format/logFold';
import type { SessionState, StoredState } from '../format/sessionState';
import type { StoreContext } from './storeContext';
import type { StoreLayout } from '../format/layout';
import { SessionNotFoundError } from './errors';
import { readSessionFolder, summarize, type SessionSummary } from '../format/summary';
import { autoTitle } from '../format/titles';
import type { WriteFailure } from '../format/writeFailure';
import { LogWriteFailedError, unsavedTurnNote, writeFailureOf } from './writeFailure';

/** The note on a turn that crash recovery ends. */
export const INTERRUPTED_NOTE = 'Braid stopped while this turn was running (its window or process closed or crashed).';

/**
 * Appends to one session's main log and keeps its summary in step: each record it appends goes
 * through the one fold of the log (src/core/format/logFold.ts), so the summary in memory is what
 * the index would rebuild from disk. Records go through one {@link WireLogWriter} in order;
 * turn_begin, turn_end and calls between turns are fsynced. The index row follows at a turn's
 * start and end (state.json is written only for what the user owns: queue, title, folders).
 * Every append and state write is fenced by the writer lease: once another process has taken it
 * over, each throws LeaseLostError and nothing more is written.
 */
export class SessionWriter {
  /** The append error this writer marked the session for last (a failed log repeats it to every append). */
  private markedFor: { err: unknown; failure: WriteFailure } | undefined;

  private constructor(
    private readonly store: StoreContext,
    readonly dir: string,
    readonly id: string,
    private readonly lease: WriterLease,
    /** Throws unless this process still holds the lease (LeaseLostError) and the folder is there; run before each write. */
    readonly fence: () => void,
    private log: WireLogWriter,
    private current: SessionSummary,
    private initial: Pick<History, 'messages' | 'compactions' | 'memory'> | undefined,
  ) {}

  /** A held turn's first records, stamped, not yet written nor folded (see {@link beginTurn}'s `hold`). */
  private held: { turn: number; records: KnownRecord[] } | undefined;

  /** True while the open turn's first records are held back (no answer has arrived yet). */
  get holding(): boolean {
    return this.held !== undefined;
  }

  /**
   * The effective history as read when the writer opened (the log was read then anyway), handed
   * over once so opening a session reads its log one time, not twice.
   */
  takeInitialHistory(): Pick<History, 'messages' | 'compactions' | 'memory'> | undefined {
    const history = this.initial;
    this.initial = undefined;
    return history;
  }

  /**
   * Opens the session for appending: takes its writer lease first (SessionBusyError when another
   * process holds a fresh one; a stale one is taken over). The caller runs `recover` next.
   */
  static async open(store: StoreContext, dir: string): Promise<SessionWriter> {
    const lease = await WriterLease.acquire(store.layout, dir);
    const was = lease.tookOverFrom;
    if (was) {
      const why = isDead(was) ? 'its process is gone' : `not renewed for ${Math.round((Date.now() - was.renewedAt) / 1000)} s`;
      store.logger.info(`session ${path.basename(dir)}: took over the writer lease from process ${was.pid} on ${was.host} (${why})`);
    }
    const fence = () => {
      try {
        lease.check();
      } catch (err) {
        if (!fs.existsSync(dir)) {
          // The tree and the lists drop it now, as a read that finds its folder gone does.
          if (store.index.get(path.basename(dir))) store.index.removeSession(path.basename(dir));
          throw folderRemoved(store.layout, dir);
        }
        throw err;
      }
    };
    try {
      await finishPending(store, dir, fence);
      const logFile = store.layout.agentLog(dir);
      // When the index row is current (same log size and state file), the summary and its fold
      // come from it and the log is read from its end back to the latest compaction only.
      const indexed = store.currentRow(dir);
      const writer = indexed
        ? new SessionWriter(store, dir, indexed.state.id, lease, fence, WireLogWriter.open(logFile, { fence }), indexed, readContextTail(logFile))
        : SessionWriter.fromFolder(store, dir, lease, fence);
      store.trackWriter(writer, true);
      return writer;
    } catch (err) {
      await lease.release();
      throw err;
    }
  }

  /** A writer over a session folder read whole (its index row is missing or behind). */
  private static fromFolder(store: StoreContext, dir: string, lease: WriterLease, fence: () => void): SessionWriter {
    const logFile = store.layout.agentLog(dir);
    const reading = readSessionFolder(dir, store.layout.stateFile(dir), logFile);
    return new SessionWriter(store, dir, reading.summary.state.id, lease, fence, WireLogWriter.open(logFile, { fence }), reading.summary, reading.history);
  }

  /** The session as its log and state say now (memory, no disk). */
  get summary(): SessionSummary {
    return this.current;
  }

  /** Crash recovery, run by whoever opens the session: a turn a dead writer left open ends `interrupted` with a note. Returns whether a turn was ended. */
  async recover(): Promise<boolean> {
    if (this.openTurn === null) return false;
    const unsaved = this.current.state.writeFailure;
    await this.endTurn('interrupted', unsaved ? unsavedTurnNote(unsaved) : INTERRUPTED_NOTE);
    return true;
  }

  /** True once another process has taken the lease over (the folder still there): nothing more can be written through this writer. */
  get takenOver(): boolean {
    return !this.lease.held && fs.existsSync(this.dir);
  }

  /** Changes state.json (queue, folders, ...) as this session's writer: fenced like every write of it. */
  async updateState(change: (s: StoredState) => StoredState): Promise<SessionState> {
    this.fence(); // before locate: a folder removed says so, not "not found"
    return this.store.update(this.id, change, {
      fence: this.fence,
      summary: (stored, stateMtime) => (this.current = summarize(stored, this.current.fold, this.current.state.agents, this.log.bytes, stateMtime)),
    });
  }

  /** A change of state.json made in this process beside this writer (a rename, an archive): its summary takes it. */
  stateChanged(stored: StoredState, stateMtime: number): SessionSummary {
    // The mark of a failed log write that state.json could not keep stays (docs/reference.md, Wire records).
    const writeFailure = stored.writeFailure ?? this.current.state.writeFailure;
    const { fold, state } = this.current;
    this.current = summarize({ ...stored, ...(writeFailure ? { writeFailure } : {}) }, fold, state.agents, this.log.bytes, stateMtime);
    return this.current;
  }

  /** Opens a subagent's log for appending, fenced by this writer's lease; the session lists the agent from now on. */
  openAgentLog(agentId: string, title: string): WireLogWriter {
    const log = WireLogWriter.open(this.store.layout.agentLog(this.dir, agentId), { fence: this.fence });
    this.current.state.agents = [...this.current.state.agents, { id: agentId, parentId: 'main', title }];
    return log;
  }

  /** The current turn number (0 before the first; a held turn is not counted until it is written). */
  get currentTurn(): number {
    return factsOf(this.current.fold).nextTurn - 1;
  }

  /** A turn that began and has not ended (left by a crash, or running). */
  get openTurn(): number | null {
    return this.held?.turn ?? factsOf(this.current.fold).openTurn;
  }

  /**
   * After a rewind or its undo (records another writer appended under this lease), the summary
   * and the log's end are read again; the next turn is numbered from the log's.
   */
  async reload(): Promise<void> {
    if (this.openTurn !== null) throw new Error(`turn ${this.openTurn} of ${this.id} has not ended`);
    await this.log.close();
    this.log = WireLogWriter.open(this.store.layout.agentLog(this.dir), { fence: this.fence });
    this.current = this.store.summaryAt(this.dir, { live: false });
  }

  /**
   * Starts a turn: appends turn_begin (fsynced); the session is running from then on. Returns its
   * number. `auto` marks an automatic turn (a goal run's); `branch` is the git branch the
   * workspace is on (none outside a repository or on a detached HEAD). With `hold`, turn_begin
   * and the records after it that are not an answer (the prompt, its context, a model error and
   * its usage) are held in memory: the first other record (an answer, a tool, a compaction,
   * turn_end) writes them all first, in order, stamped as they came; {@link dropHeld} forgets
   * them (the turn failed before any answer: the log is as it was).
   */
  async beginTurn(
    promptId: string,
    model: ModelSnapshot | null,
    mode?: TurnMode,
    prompt?: TurnBeginRecord['prompt'],
    options: { hold?: boolean; auto?: TurnBeginRecord['auto']; branch?: string } = {},
  ): Promise<number> {
    this.fence(); // a folder removed or a lease lost says so before anything else
    if (this.log.failed) await this.reopenLog();
    if (this.openTurn !== null) throw new Error(`turn ${this.openTurn} of ${this.id} has not ended`);
    const turn = this.currentTurn + 1;
    const begin: NewRecord = {
      t: 'turn_begin',
      turn,
      promptId,
      model,
      ...(mode ? { mode } : {}),
      ...(prompt ? { prompt } : {}),
      ...(options.auto ? { auto: options.auto } : {}),
      ...(options.branch ? { branch: options.branch } : {}),
    };
    if (options.hold) {
      this.held = { turn, records: [WireLogWriter.serialize(begin).record] };
      return turn;
    }
    await this.record(begin, true);
    this.publish();
    return turn;
  }

  /** Appends a finished message of the open turn (held with the turn's first records when it is not an answer). */
  async appendMessage(message: Message, id = newMessageId(), injected?: InjectedContext): Promise<MessageRecord> {
    const turn = this.requireOpen();
    const answer = message.role === 'assistant' && message.stopReason !== 'error';
    const [record] = await this.record({ t: 'message', turn, id, message, ...(injected ? { injected } : {}) }, false, !answer);
    return record as MessageRecord;
  }

  /** Forgets a held turn's records: nothing of it was written. Returns whether there were any. */
  dropHeld(): boolean {
    const had = this.held !== undefined;
    this.held = undefined;
    return had;
  }

  /**
   * Appends a message to the last turn without opening one: the tool results that close calls a
   * crash left open. Nothing to do before the first turn.
   */
  async appendToLastTurn(message: Message): Promise<void> {
    const turn = this.currentTurn;
    if (turn === 0) return;
    await this.record({ t: 'message', turn, id: newMessageId(), message }, true);
  }

  /** Appends a usage record for an assistant message of the open turn. */
  async appendUsage(usage: Omit<UsageRecord, 'v' | 'ts' | 't' | 'turn'>): Promise<UsageRecord> {
    const turn = this.requireOpen();
    const [record] = await this.record({ t: 'usage', turn, ...usage }, false, true);
    return record as UsageRecord;
  }

  /**
   * Appends the usage of a call outside the conversation (a side question, a compaction that
   * failed), in the open turn or, between turns, in the last one, so its money is counted;
   * nothing enters the history. Between turns the index hears of it now.
   */
  async appendCallUsage(usage: Omit<UsageRecord, 'v' | 'ts' | 't' | 'turn'>): Promise<void> {
    this.fence();
    const open = this.openTurn;
    await this.record({ t: 'usage', turn: open ?? this.currentTurn, ...usage }, true);
    if (open === null) this.publish();
  }

  /**
   * Appends a compaction and the usage of its summary call (marked `purpose: compaction`), fsynced,
   * in the open turn or, between turns, in the last one; then, in the same write, the session
   * memory when there is one (docs/reference.md, Session memory), with the usage of the call that
   * extracted it. Returns the compaction record and the memory record.
   */
  async appendCompaction(
    compaction: { summary: string; firstKeptMessageId: string; summarized: number },
    usage: Omit<UsageRecord, 'v' | 'ts' | 't' | 'turn' | 'purpose'>,
    memory?: MemoryWrite,
  ): Promise<{ compaction: CompactionRecord; memory: MemoryRecord | undefined }> {
    const open = this.openTurn;
    const turn = open ?? this.currentTurn;
    const written = await this.record(
      [{ t: 'compaction', turn, ...compaction }, { t: 'usage', turn, ...usage, purpose: 'compaction' }, ...(memory ? memoryRecords(turn, memory) : [])],
      true,
    );
    if (open === null) this.publish();
    return { compaction: written[0] as CompactionRecord, memory: memory ? (written[2] as MemoryRecord) : undefined };
  }

  /**
   * Appends the session memory (docs/reference.md, Session memory), fsynced, in the open turn or,
   * between turns, in the last one (0 before the first).
   */
  async appendMemory(memory: MemoryWrite): Promise<MemoryRecord> {
    this.fence();
    const open = this.openTurn;
    const [record] = await this.record(memoryRecords(open ?? this.currentTurn, memory), true);
    if (open === null) this.publish();
    return record as MemoryRecord;
  }

  /** Appends other records (tool, file_change, ...) as they are; a prompt's context is held with a held turn's first records. */
  async append(records: NewRecord | NewRecord[], durable = false): Promise<KnownRecord[]> {
    const list = Array.isArray(records) ? records : [records];
    return this.record(
      records,
      durable,
      list.every((r) => r.t === 'context'),
    );
  }

  /**
   * Ends the open turn: turn_end fsynced, then the index row. state.json is written only when
   * the session gets its automatic title (from its first prompt, once), or loses the mark of a
   * failed write (its log is written whole again).
   */
  async endTurn(outcome: TurnOutcome, error?: string): Promise<void> {
    const turn = this.requireOpen();
    await this.record({ t: 'turn_end', turn, outcome, ...(error ? { error } : {}) }, true);
    const { state, firstPrompt } = this.current;
    const title = state.titleSource === 'auto' && !state.title && firstPrompt ? autoTitle(firstPrompt) : undefined;
    if (title || state.writeFailure) {
      await this.updateState(({ writeFailure: _saved, ...s }) => (title && s.titleSource === 'auto' && !s.title ? { ...s, title } : s));
    } else {
      this.publish();
    }
  }

  async close(): Promise<void> {
    this.store.trackWriter(this, false);
    try {
      await this.log.close();
    } finally {
      await this.lease.release();
    }
  }

  private requireOpen(): number {
    const open = this.openTurn;
    if (open === null) throw new Error(`no turn is open in ${this.id}`);
    return open;
  }

  /**
   * After a write failed for good, the next turn tries a new writer (the disk may have room again):
   * a turn the failure left open ends `interrupted` first.
   */
  private async reopenLog(): Promise<void> {
    await this.log.close();
    this.log = WireLogWriter.open(this.store.layout.agentLog(this.dir), { fence: this.fence });
    await this.recover();
  }

  /**
   * A failed append marks the session with its cause: in memory first (the views of this process
   * show it even when nothing can be written), then in state.json when that can still be written
   * (on a full disk it may not be). Throws LogWriteFailedError, whose message names the cause.
   */
  private async markUnsaved(err: unknown): Promise<never> {
    const marked = this.markedFor;
    const failure = marked && marked.err === err ? marked.failure : writeFailureOf(err);
    if (!failure) throw err;
    if (marked?.err !== err) {
      this.markedFor = { err, failure };
      const { fold, state, logBytes, stateMtime } = this.current;
      this.current = summarize({ ...state, writeFailure: failure }, fold, state.agents, logBytes, stateMtime);
      // A removed folder's row is gone from the index (the fence dropped it): it is not put back.
      if (failure.kind !== 'folder-removed') {
        this.publish();
        try {
          await this.updateState((s) => ({ ...s, writeFailure: failure }));
        } catch (stateErr) {
          this.store.logger.warn(`session ${this.id}: the mark of a failed log write could not be saved in state.json either (${String(stateErr)})`);
        }
      }
    }
    throw err instanceof LogWriteFailedError ? err : new LogWriteFailedError(failure, { cause: err });
  }

  /**
   * Appends records and folds them into the summary. While a turn is held, `holdable` ones join
   * the held records; any other write takes the held ones first (fsynced: the turn begins on disk).
   */
  private async record(records: NewRecord | NewRecord[], durable = false, holdable = false): Promise<KnownRecord[]> {
    const list = Array.isArray(records) ? records : [records];
    const held = this.held;
    if (held && holdable) {
      const stamped = list.map((r) => WireLogWriter.serialize(r).record);
      held.records.push(...stamped);
      return stamped;
    }
    this.held = undefined;
    const lines = await this.log
      .appendLines(held ? [...held.records, ...list] : list, { durable: durable || held !== undefined })
      .catch((err: unknown) => this.markUnsaved(err));
    foldWritten(this.current.fold, lines);
    this.current = summarize(this.current.state, this.current.fold, this.current.state.agents, this.log.bytes, this.current.stateMtime);
    const written = lines.map((l) => l.record);
    if (!held) return written;
    this.publish(); // the held turn_begin: the session is running from now on
    return written.slice(held.records.length);
  }

  /** Hands the summary to the index (in memory; saved soon after) and tells its listeners. */
  private publish(): void {
    this.store.index.putSummary(this.id, this.current);
  }
}

/** A session memory to write: its facts, who wrote them, and the usage of the model call that did (marked `purpose: memory`). */
export interface MemoryWrite {
  readonly facts: readonly MemoryFact[];
  readonly by: MemoryRecord['by'];
  readonly usage?: Omit<UsageRecord, 'v' | 'ts' | 't' | 'turn' | 'purpose'>;
}

function memoryRecords(turn: number, { facts, by, usage }: MemoryWrite): NewRecord[] {
  return [{ t: 'memory', turn, facts, by }, ...(usage ? [{ t: 'usage' as const, turn, ...usage, purpose: 'memory' }] : [])];
}

/**
 * A folder removed while open (a delete in another window, by hand, another program) takes the
 * log with it; the message says whether the trash has it.
 */
function folderRemoved(layout: StoreLayout, dir: string): SessionNotFoundError {
  const id = path.basename(dir);
  const trashed = fs.existsSync(layout.trashedSessionDir(path.basename(path.dirname(dir)), id));
  const how = trashed
    ? 'deleted in another window or the CLI (it is in the trash for 7 days: Undelete brings it back)'
    : 'not by Braid (it is not in the trash)';
  return new SessionNotFoundError(`the folder of session ${id} was removed while it was open, ${how}, so nothing more can be saved to it; start a new session`);
}
