import type { StreamFn } from '@mariozechner/pi-agent-core';
import type { Api, Message, Model } from '@mariozechner/pi-ai';
import { errorMessage } from '../errors';
import { newMessageId } from '../ids';
import { duration, type Logger } from '../logger';
import type { MemoryWrite, SessionWriter } from '../store/sessionWriter';
import type { MemoryFact, MemoryRecord } from '../wire/records';
import { callUsage } from './callUsage';
import type { SessionEvent } from './events';
import { memoryForModel } from './memory';
import { extractMemory, MemoryExtractionFailed } from './memoryExtraction';

/** What a SessionMemory needs from its Session. */
export interface SessionMemoryHost {
  readonly writer: SessionWriter;
  readonly logger: Logger;
  readonly sessionId: string;
  /** The model and its API key at the time of the call. */
  model(): Promise<{ model: Model<Api>; apiKey: string | undefined; streamFn?: StreamFn }>;
  emit(event: SessionEvent): void;
}

/**
 * The session memory of one Session (docs/reference.md, Session memory): the latest memory
 * record, the model's extraction of a new one (at a compaction, or asked for), and the user's
 * edits. A change the model has not been given yet waits as a note for the next prompt.
 */
export class SessionMemory {
  private untold: string | undefined;

  constructor(
    private readonly host: SessionMemoryHost,
    private record: MemoryRecord | undefined,
  ) {}

  /** The memory record the session holds now (undefined: none yet). */
  get current(): MemoryRecord | undefined {
    return this.record;
  }

  get facts(): readonly MemoryFact[] {
    return this.record?.facts ?? [];
  }

  /** After a rewind or its undo: the memory the log holds now. */
  reloaded(record: MemoryRecord | undefined): void {
    this.record = record;
    this.untold = undefined;
  }

  /**
   * The reminder of a memory changed since the model was last given it (a user's edit, an
   * update asked for between compactions), handed out once for the next prompt.
   */
  takeUntold(): string | undefined {
    const note = this.untold;
    this.untold = undefined;
    return note;
  }

  /** The model was just given the memory (a compaction's summary carries it). */
  told(): void {
    this.untold = undefined;
  }

  /** The user's edit: the whole list, written as a new record `by: user`. */
  async set(facts: readonly MemoryFact[]): Promise<MemoryRecord> {
    return this.written(await this.host.writer.appendMemory({ facts, by: 'user' }), 'The user edited the session memory');
  }

  /**
   * Asks the model for the memory over `messages` (the conversation as the model has it) and
   * writes it (`by: model`). Throws MemoryExtractionFailed when it fails: the memory stays as it
   * was, and the call's usage is recorded when it answered.
   */
  async update(messages: readonly Message[], signal?: AbortSignal): Promise<MemoryRecord> {
    const write = await this.extract(messages, signal);
    return this.written(await this.host.writer.appendMemory(write), 'The session memory was updated');
  }

  /**
   * What a compaction writes after its record: the memory extracted from the messages it
   * summarizes, or, when that fails, the memory as it was (so the latest memory is never before
   * the latest compaction; docs/reference.md, Session memory) and the error. Nothing when there
   * is no memory and none could be made.
   */
  async forCompaction(older: readonly Message[], signal: AbortSignal): Promise<{ write: MemoryWrite | undefined; error?: string }> {
    try {
      return { write: await this.extract(older, signal) };
    } catch (err) {
      const error = `The session memory was not updated (${errorMessage(err)}); it stays as it was.`;
      this.host.emit({ type: 'memory', error });
      return { write: this.record ? { facts: this.record.facts, by: this.record.by } : undefined, error };
    }
  }

  /** A compaction wrote the memory record (its summary message gives it to the model). */
  compacted(record: MemoryRecord | undefined): void {
    if (!record) return;
    this.record = record;
    this.untold = undefined;
    this.host.emit({ type: 'memory', record });
  }

  private async extract(messages: readonly Message[], signal?: AbortSignal): Promise<MemoryWrite> {
    const { model, apiKey, streamFn } = await this.host.model();
    const startedAt = Date.now();
    try {
      const { facts, answer } = await extractMemory({
        model,
        messages,
        previous: this.facts,
        ...(apiKey ? { apiKey } : {}),
        ...(streamFn ? { streamFn } : {}),
        ...(signal ? { signal } : {}),
      });
      this.host.logger.info(`session ${this.host.sessionId}: memory extracted (${facts.length} facts) in ${duration(Date.now() - startedAt)}`);
      return { facts, by: 'model', usage: callUsage(answer, newMessageId(), startedAt) };
    } catch (err) {
      this.host.logger.warn(`session ${this.host.sessionId}: the memory extraction failed: ${errorMessage(err)}`);
      if (err instanceof MemoryExtractionFailed && err.answer) await this.countFailedCall(err.answer, startedAt);
      throw err;
    }
  }

  private written(record: MemoryRecord, why: string): MemoryRecord {
    this.record = record;
    this.untold = `${why}. ${memoryForModel(record.facts)}`;
    this.host.emit({ type: 'memory', record });
    return record;
  }

  /** A call that answered without a memory was still a call: its usage is recorded. */
  private async countFailedCall(answer: Parameters<typeof callUsage>[0], startedAt: number): Promise<void> {
    try {
      await this.host.writer.appendCallUsage(callUsage(answer, newMessageId(), startedAt, 'memory'));
    } catch (err) {
      this.host.logger.warn(`session ${this.host.sessionId}: the usage of a failed memory extraction could not be recorded (${errorMessage(err)})`);
    }
  }
}
