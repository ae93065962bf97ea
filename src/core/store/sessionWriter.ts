import type { Message } from '@mariozechner/pi-ai';
import { newMessageId } from '../ids';
import type { CompactionRecord, KnownRecord, MessageRecord, ModelSnapshot, NewRecord, TurnOutcome, UsageRecord } from '../wire/records';
import { WireLogWriter } from '../wire/wireLog';
import { finishPending } from './pendingRewind';
import { isDead, WriterLease } from './writerLease';
import { readContextTail } from '../wire/contextTail';
import { statMtime, statSize } from '../fs/probe';
import path from 'node:path';
import fs from 'node:fs';
import type { History } from '../wire/replay';
import type { SessionState, SessionStatus } from '../format/sessionState';
import type { StoreContext } from './storeContext';
import { SessionNotFoundError } from './errors';
import { addToTotals, addUsage, messageText, previewOf, promptText, readSessionFolder, MAX_SEARCH_TEXT, type SessionSummary } from '../format/summary';
import { autoTitle } from '../format/titles';

const STATUS_OF: Record<TurnOutcome, SessionStatus> = { completed: 'idle', cancelled: 'aborted', failed: 'error', interrupted: 'interrupted' };

/** The note on a turn that crash recovery ends. */
export const INTERRUPTED_NOTE = 'Braid stopped while this turn was running (its window or process closed or crashed).';

/**
 * Appends to one session's main log and keeps its state and index row in step. Records go
 * through one {@link WireLogWriter} in order; turn_end and status changes are fsynced before
 * state.json changes, so a crash can lose at most the records of the turn in flight. Every
 * append and state write is fenced by the writer lease: once another process has taken it over,
 * each throws LeaseLostError and nothing more is written.
 */
export class SessionWriter {
  private constructor(
    private readonly store: StoreContext,
    readonly dir: string,
    readonly id: string,
    private readonly lease: WriterLease,
    /** Throws unless this process still holds the lease (LeaseLostError) and the folder is there; run before each write. */
    readonly fence: () => void,
    private readonly log: WireLogWriter,
    private summary: SessionSummary,
    private turn: number,
    private open: number | null,
    private initial: Pick<History, 'messages' | 'compactions'> | undefined,
  ) {}

  /**
   * The effective history as read when the writer opened (the log was read then anyway), handed
   * over once so opening a session reads its log one time, not twice.
   */
  takeInitialHistory(): Pick<History, 'messages' | 'compactions'> | undefined {
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
        if (!fs.existsSync(dir)) throw folderRemoved(path.basename(dir));
        throw err;
      }
    };
    try {
      await finishPending(store, dir, fence);
      const logFile = store.layout.agentLog(dir);
      // When the index row is current (same log size and state file), the summary comes from it
      // and the log is read from its end back to the latest compaction only.
      const indexed = store.index.summaryOf(path.basename(dir));
      if (indexed && indexed.logBytes === statSize(logFile) && indexed.stateMtime === statMtime(store.layout.stateFile(dir))) {
        const tail = readContextTail(logFile);
        const log = WireLogWriter.open(logFile, { fence });
        return new SessionWriter(store, dir, indexed.state.id, lease, fence, log, indexed, tail.lastTurn, tail.openTurn, tail);
      }
      const reading = readSessionFolder(dir, store.layout.stateFile(dir), logFile);
      const log = WireLogWriter.open(logFile, { fence });
      return new SessionWriter(store, dir, reading.summary.state.id, lease, fence, log, reading.summary, reading.nextTurn - 1, reading.openTurn, reading.history);
    } catch (err) {
      await lease.release();
      throw err;
    }
  }

  /**
   * Crash recovery, run by whoever opens the session: a turn a dead writer left open ends
   * `interrupted` with a note; a status left `running` (a crash after turn_end, before its state
   * write) or a turn count behind the log is set right. Returns whether a turn was ended.
   */
  async recover(): Promise<boolean> {
    if (this.open !== null) {
      await this.endTurn('interrupted', INTERRUPTED_NOTE);
      return true;
    }
    const { status, turnCount } = this.summary.state;
    if (status === 'running' || turnCount < this.turn) {
      await this.setState((s) => ({ ...s, status: s.status === 'running' ? 'idle' : s.status, turnCount: Math.max(s.turnCount, this.turn) }));
    }
    return false;
  }

  /** True once another process has taken the lease over (the folder still there): nothing more can be written through this writer. */
  get takenOver(): boolean {
    return !this.lease.held && fs.existsSync(this.dir);
  }

  /** Changes state.json (queue, agents, ...) as this session's writer: fenced like every write of it. */
  updateState(change: (s: SessionState) => SessionState): Promise<SessionState> {
    return this.store.update(this.id, change, { fence: this.fence });
  }

  /** Opens a subagent's log for appending, fenced by this writer's lease. */
  openAgentLog(agentId: string): WireLogWriter {
    return WireLogWriter.open(this.store.layout.agentLog(this.dir, agentId), { fence: this.fence });
  }

  /** The current turn number (0 before the first). */
  get currentTurn(): number {
    return this.turn;
  }

  /** A turn that began and has not ended (left by a crash, or running). */
  get openTurn(): number | null {
    return this.open;
  }

  /** After a rewind or its undo, the next turn is numbered from `lastTurn` + 1. */
  resetTurn(lastTurn: number): void {
    if (this.open !== null) throw new Error(`turn ${this.open} of ${this.id} has not ended`);
    this.turn = lastTurn;
  }

  /** Starts a turn: appends turn_begin, marks the session running (fsynced). Returns its number. */
  async beginTurn(promptId: string, model: ModelSnapshot | null): Promise<number> {
    this.fence(); // a folder removed or a lease lost says so before anything else
    if (this.open !== null) throw new Error(`turn ${this.open} of ${this.id} has not ended`);
    const turn = this.turn + 1;
    await this.log.append({ t: 'turn_begin', turn, promptId, model }, { durable: true });
    this.turn = turn;
    this.open = turn;
    await this.setState((s) => ({ ...s, status: 'running', error: null, model: model ?? s.model }));
    return turn;
  }

  /** Appends a finished message of the open turn. */
  async appendMessage(message: Message, id = newMessageId()): Promise<MessageRecord> {
    const turn = this.requireOpen();
    const [record] = await this.log.append({ t: 'message', turn, id, message });
    this.noteMessage(message);
    return record as MessageRecord;
  }

  /**
   * Appends a message to the last turn without opening one: the tool results that close calls a
   * crash left open. Nothing to do before the first turn.
   */
  async appendToLastTurn(message: Message): Promise<void> {
    if (this.turn === 0) return;
    await this.log.append({ t: 'message', turn: this.turn, id: newMessageId(), message }, { durable: true });
    this.noteMessage(message);
  }

  /** Appends a usage record for an assistant message of the open turn. */
  async appendUsage(usage: Omit<UsageRecord, 'v' | 'ts' | 't' | 'turn'>): Promise<UsageRecord> {
    const turn = this.requireOpen();
    const [record] = await this.log.append({ t: 'usage', turn, ...usage });
    this.countCall(record as UsageRecord);
    return record as UsageRecord;
  }

  /**
   * Appends the usage of a call outside the conversation (a side question, a compaction that
   * failed), in the open turn or, between turns, in the last one, so its money is counted;
   * nothing enters the history.
   */
  async appendCallUsage(usage: Omit<UsageRecord, 'v' | 'ts' | 't' | 'turn'>): Promise<void> {
    this.fence();
    const [record] = await this.log.append({ t: 'usage', turn: this.open ?? this.turn, ...usage }, { durable: true });
    await this.countCallBetweenTurns(record as UsageRecord);
  }

  /** A new call in this session's buckets and live totals. */
  private countCall(record: UsageRecord): void {
    addUsage(this.summary.usage, record, this.id);
    addToTotals(this.summary.state.usage, record);
  }

  /** Counts a call; between turns state.json and the index get the totals now (a turn's end does it otherwise). */
  private async countCallBetweenTurns(record: UsageRecord): Promise<void> {
    this.countCall(record);
    if (this.open !== null) return;
    const totals = { ...this.summary.state.usage };
    await this.setState((s) => ({ ...s, usage: totals }));
  }

  /**
   * Appends a compaction and the usage of its summary call (marked `purpose: compaction`), fsynced,
   * in the open turn or, between turns, in the last one; usage totals follow.
   */
  async appendCompaction(compaction: { summary: string; firstKeptMessageId: string; summarized: number }, usage: Omit<UsageRecord, 'v' | 'ts' | 't' | 'turn' | 'purpose'>): Promise<CompactionRecord> {
    const turn = this.open ?? this.turn;
    const [record, usageRecord] = await this.log.append([
      { t: 'compaction', turn, ...compaction },
      { t: 'usage', turn, ...usage, purpose: 'compaction' },
    ], { durable: true });
    await this.countCallBetweenTurns(usageRecord as UsageRecord);
    return record as CompactionRecord;
  }

  /** Appends other records (tool, file_change, ...) as they are. */
  async append(records: NewRecord | NewRecord[], durable = false): Promise<KnownRecord[]> {
    return this.log.append(records, { durable });
  }

  /** Ends the open turn: turn_end fsynced, then state (turn count, status, usage, auto title) and index. */
  async endTurn(outcome: TurnOutcome, error?: string): Promise<void> {
    const turn = this.requireOpen();
    await this.log.append({ t: 'turn_end', turn, outcome, ...(error ? { error } : {}) }, { durable: true });
    this.open = null;
    const usage = { ...this.summary.state.usage };
    await this.setState((s) => ({
      ...s,
      status: STATUS_OF[outcome],
      error: outcome === 'failed' ? { message: error ?? 'The turn failed.', source: 'turn' } : null,
      turnCount: turn,
      usage,
      title: s.titleSource === 'user' || s.title ? s.title : autoTitle(this.summary.firstPrompt),
    }));
  }

  async close(): Promise<void> {
    try {
      await this.log.close();
    } finally {
      await this.lease.release();
    }
  }

  private requireOpen(): number {
    if (this.open === null) throw new Error(`no turn is open in ${this.id}`);
    return this.open;
  }

  private noteMessage(message: Message): void {
    const s = this.summary;
    s.messageCount++;
    const text = message.role === 'user' ? promptText(message) : messageText(message);
    if (message.role === 'user') {
      if (!s.firstPrompt) s.firstPrompt = previewOf(text);
      if (s.prompts.length < MAX_SEARCH_TEXT) s.prompts = (s.prompts ? `${s.prompts}\n${text}` : text).slice(0, MAX_SEARCH_TEXT);
    } else if (message.role === 'assistant' && text.trim()) {
      s.lastPreview = previewOf(text);
    }
  }

  private async setState(change: (s: SessionState) => SessionState): Promise<void> {
    this.fence(); // before locate: a folder removed says so, not "not found"
    await this.store.update(this.id, change, {
      fence: this.fence,
      summary: (state, stateMtime) => (this.summary = { ...this.summary, state, logBytes: this.log.bytes, stateMtime }),
    });
  }
}

/** A folder removed while open (by hand, another program, or a delete elsewhere) takes the log with it. */
function folderRemoved(id: string): SessionNotFoundError {
  return new SessionNotFoundError(`the folder of session ${id} was removed while it was open, so nothing more can be saved to it; restore it from the trash if it was deleted, or start a new session`);
}
