import type { CacheBreakRecord, CompactionRecord, ContextRecord, MemoryRecord, MessageRecord, TurnOutcome } from '../wire/records';
import type { SessionStatus, UsageTotals } from '../format/sessionState';
import type { TurnMode } from '../wire/turnMode';

/** The states of a prompt (docs/reference.md, Turns and prompts). */
export type PromptState = 'pending' | 'running' | 'steered' | 'completed' | 'failed' | 'cancelled' | 'blocked';

/** A prompt the user submitted, as the UI shows it. */
export interface PromptInfo {
  readonly promptId: string;
  readonly text: string;
  readonly messageKey: string;
  readonly state: PromptState;
  /** Why it was blocked or failed. */
  readonly reason?: string;
  /** It failed before any answer and nothing of it was written (a held prompt): the user gets it back to edit. */
  readonly unsent?: boolean;
}

/** What a Session tells its UI, in order. Live output; the log is the record. */
export type SessionEvent =
  | { readonly type: 'prompt'; readonly prompt: PromptInfo }
  | { readonly type: 'turn-start'; readonly turn: number; readonly promptId: string; readonly mode: TurnMode }
  | { readonly type: 'text-delta'; readonly turn: number; readonly delta: string }
  | { readonly type: 'thinking-delta'; readonly turn: number; readonly delta: string }
  | { readonly type: 'tool-start'; readonly turn: number; readonly toolCallId: string; readonly name: string; readonly args: unknown }
  | {
      readonly type: 'tool-end';
      readonly turn: number;
      readonly toolCallId: string;
      readonly name: string;
      readonly isError: boolean;
      readonly text: string;
      /** A write's or edit's diff with context lines (its result's `details.diff`). */
      readonly diff?: string;
    }
  /** A finished message; a turn's prompt comes with what the user attached to it. */
  | { readonly type: 'message'; readonly record: MessageRecord; readonly context?: ContextRecord }
  /** A turn ended; `unsent`: it was held and failed before its answer, so nothing of it is in the log; `unsaved` when its end could not be written (a lost lease, a log that failed for good). */
  | {
      readonly type: 'turn-end';
      readonly turn: number;
      readonly outcome: TurnOutcome;
      readonly error?: string;
      readonly unsent?: boolean;
      readonly unsaved?: boolean;
      readonly usage: UsageTotals;
    }
  | { readonly type: 'status'; readonly status: SessionStatus; readonly paused: boolean }
  /** A compaction started, was written (`record`), failed or was stopped; `reason` says why it ran. */
  | {
      readonly type: 'compaction';
      readonly phase: 'start' | 'end' | 'failed' | 'cancelled';
      readonly reason: CompactionReason;
      readonly record?: CompactionRecord;
      readonly error?: string;
    }
  /** The session memory was written (`record`), or its extraction failed and it stays as it was (`error`). */
  | { readonly type: 'memory'; readonly record?: MemoryRecord; readonly error?: string }
  /** The call just answered read far less from the prompt cache than the one before (its record is in the log). */
  | { readonly type: 'cache-break'; readonly record: CacheBreakRecord }
  | { readonly type: 'idle' };

/** Why a compaction ran: the context neared its limit, the provider rejected it, or the user asked. */
export type CompactionReason = 'threshold' | 'overflow' | 'manual';
