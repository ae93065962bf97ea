import type { Agent } from '@mariozechner/pi-agent-core';
import { isContextOverflow, type Api, type Message, type Model } from '@mariozechner/pi-ai';
import { errorMessage } from '../errors';
import { newMessageId } from '../ids';
import { duration, type Logger } from '../logger';
import type { SessionWriter } from '../store/sessionWriter';
import {
  CompactionCancelled,
  contextTokens,
  DEFAULT_COMPACTION,
  keepBoundary,
  summarize,
  SummaryFailed,
  summaryMessage,
  type CompactionSettings,
} from './compaction';
import { callUsage } from './callUsage';
import type { CompactionReason, SessionEvent } from './events';
import { counted } from '../counted';
import type { SessionMemory } from './sessionMemory';

/** What a Compactor needs from its Session. */
export interface CompactorHost {
  readonly agent: Agent;
  readonly writer: SessionWriter;
  readonly settings: CompactionSettings | undefined;
  readonly systemPrompt: string;
  readonly logger: Logger;
  readonly sessionId: string;
  /** The session memory, extracted again with each compaction and given to the model after its summary. */
  readonly memory: SessionMemory;
  /** The model and its API key at the time of the call. */
  model(): Promise<{ model: Model<Api>; apiKey: string | undefined; streamFn?: Parameters<typeof summarize>[0]['streamFn'] }>;
  /** The wire record id of a message the kernel holds (undefined for a summary at the head). */
  recordId(message: object): string | undefined;
  emit(event: SessionEvent): void;
  /** PreCompact hooks, run before a compaction's summary call. */
  beforeCompact?(reason: CompactionReason, focus?: string): Promise<void>;
}

/**
 * Compaction for one Session (docs/architecture.md, Compaction): decides when the context is near its limit, asks the
 * model for the summary of the older part, appends the record and gives the kernel the summary
 * plus the kept tail. One at a time; `abort` stops it.
 */
export class Compactor {
  private running: AbortController | undefined;

  constructor(private readonly host: CompactorHost) {}

  get busy(): boolean {
    return this.running !== undefined;
  }

  abort(): void {
    this.running?.abort();
  }

  private get settings(): CompactionSettings {
    return this.host.settings ?? DEFAULT_COMPACTION;
  }

  private get messages(): Message[] {
    return this.host.agent.state.messages as Message[];
  }

  /** The next request would exceed the threshold share of the model's context window. */
  nearLimit(model: Model<Api>): boolean {
    const window = model.contextWindow;
    if (!window || window <= 0) return false;
    return contextTokens(this.messages, this.host.systemPrompt) > this.settings.threshold * window;
  }

  /**
   * After a context-length error: compacts and drops the failed answer from the context (it stays
   * in the log), so the run can continue. False when it does not apply or fails.
   */
  async afterOverflow(model: Model<Api>): Promise<boolean> {
    const last = this.messages.at(-1);
    if (last?.role !== 'assistant' || last.stopReason !== 'error' || !isContextOverflow(last, model.contextWindow)) return false;
    if (!(await this.run('overflow'))) return false;
    const context = this.messages;
    if (context.at(-1) === last) this.host.agent.state.messages = context.slice(0, -1);
    return true;
  }

  /**
   * Summarizes the messages before the kept tail into a compaction record. Returns false when
   * there is nothing old enough to summarize. Failures leave the session as it was; with
   * `rethrow` they are thrown (for callers that report them), otherwise only emitted and logged.
   */
  async run(reason: CompactionReason, focus?: string, rethrow = false): Promise<boolean> {
    const messages = this.messages;
    let chosen: Awaited<ReturnType<CompactorHost['model']>>;
    try {
      chosen = await this.host.model();
    } catch (err) {
      const error = `Compaction failed: ${errorMessage(err)}. The session is unchanged and still works.`;
      this.host.logger.warn(`session ${this.host.sessionId}: ${error}`);
      if (rethrow) throw new Error(error, { cause: err });
      return false;
    }
    const { model, apiKey, streamFn } = chosen;
    // The verbatim tail is at most half the window; when everything fits in it, a compaction that
    // must happen (asked for, or the provider refused the request) keeps only the newest exchange.
    const budget = model.contextWindow > 0 ? Math.min(this.settings.keepTokens, Math.floor(model.contextWindow / 2)) : this.settings.keepTokens;
    const boundary = keepBoundary(messages, budget) ?? (reason === 'threshold' ? undefined : keepBoundary(messages, 0));
    const firstKept = boundary === undefined ? undefined : this.host.recordId(messages[boundary]!);
    if (boundary === undefined || !firstKept) return false;
    await this.host.beforeCompact?.(reason, focus);
    const controller = new AbortController();
    this.running = controller;
    this.host.emit({ type: 'compaction', phase: 'start', reason });
    const startedAt = Date.now();
    try {
      const older = messages.slice(0, boundary);
      const answer = await summarize({
        model,
        older,
        signal: controller.signal,
        ...(focus ? { focus } : {}),
        ...(apiKey ? { apiKey } : {}),
        ...(streamFn ? { streamFn } : {}),
      });
      const summary = answer.content
        .map((b) => (b.type === 'text' ? b.text : ''))
        .join('')
        .trim();
      // The memory from what is summarized; a failed extraction carries the memory as it was.
      const memory = await this.host.memory.forCompaction(older, controller.signal);
      if (controller.signal.aborted) throw new CompactionCancelled(answer);
      // An earlier summary at the head is not a message of the log.
      const summarized = older.filter((m) => this.host.recordId(m) !== undefined).length;
      const written = await this.host.writer.appendCompaction(
        { summary, firstKeptMessageId: firstKept, summarized },
        callUsage(answer, newMessageId(), startedAt),
        memory.write,
      );
      const record = written.compaction;
      this.host.agent.state.messages = [summaryMessage(summary, Date.now(), memory.write?.facts), ...messages.slice(boundary)];
      this.host.memory.compacted(written.memory);
      this.host.logger.info(
        `session ${this.host.sessionId}: compacted (${reason}): ${counted(summarized, 'message')} summarized in ${duration(Date.now() - startedAt)}`,
      );
      this.host.emit({ type: 'compaction', phase: 'end', reason, record });
      return true;
    } catch (err) {
      await this.countFailedCall(err, startedAt);
      const cancelled = err instanceof CompactionCancelled || controller.signal.aborted;
      const error = cancelled ? new CompactionCancelled().message : `Compaction failed: ${errorMessage(err)}. The session is unchanged and still works.`;
      this.host.logger.warn(`session ${this.host.sessionId}: ${error}`);
      this.host.emit({ type: 'compaction', phase: cancelled ? 'cancelled' : 'failed', reason, error });
      if (rethrow) throw cancelled ? new CompactionCancelled() : new Error(error);
      return false;
    } finally {
      if (this.running === controller) this.running = undefined;
    }
  }

  /** A summary call that answered but failed (empty, an error, stopped) was still a call: its usage is recorded, nothing else. */
  private async countFailedCall(err: unknown, startedAt: number): Promise<void> {
    const answer = err instanceof SummaryFailed || err instanceof CompactionCancelled ? err.answer : undefined;
    if (!answer) return;
    try {
      await this.host.writer.appendCallUsage(callUsage(answer, newMessageId(), startedAt, 'compaction'));
    } catch (recordErr) {
      this.host.logger.warn(`session ${this.host.sessionId}: the usage of a failed compaction could not be recorded (${errorMessage(recordErr)})`);
    }
  }
}
