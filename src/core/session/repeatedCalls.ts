import { createAssistantMessageEventStream, type Api, type AssistantMessage, type AssistantMessageEventStream, type Model } from '@mariozechner/pi-ai';
import { canonicalJson } from '../format/canonicalJson';

// A model that makes the same tool call again and again in one turn is stuck: the same command,
// the same read, the same search. At `remindAt` its result tells it so; at `stopAt` the call is
// not run and the turn ends, saying why. Counted per turn, by the tool and its arguments (keys
// in any order).

/** When a repeated call gets a reminder, and when it ends the turn. */
export interface RepeatLimits {
  readonly remindAt: number;
  readonly stopAt: number;
}

export const DEFAULT_REPEAT_LIMITS: RepeatLimits = { remindAt: 3, stopAt: 5 };

/** What to do with a call: run it; run it and remind the model; or end the turn. */
export type RepeatVerdict = { readonly kind: 'run' } | { readonly kind: 'remind' | 'stop'; readonly times: number; readonly message: string };

/** The calls of one turn, counted. */
export class RepeatedCalls {
  private readonly counts = new Map<string, number>();
  private readonly limits: RepeatLimits;

  constructor(limits: Partial<RepeatLimits> = {}) {
    const remindAt = positive(limits.remindAt, DEFAULT_REPEAT_LIMITS.remindAt);
    this.limits = { remindAt, stopAt: Math.max(remindAt, positive(limits.stopAt, DEFAULT_REPEAT_LIMITS.stopAt)) };
  }

  /** Call at each turn's start. */
  turnStarted(): void {
    this.counts.clear();
  }

  /** Counts a call about to run. */
  count(tool: string, args: unknown): RepeatVerdict {
    const key = `${tool}\n${canonicalJson(args)}`;
    const times = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, times);
    if (times >= this.limits.stopAt)
      return {
        kind: 'stop',
        times,
        message: `The turn was stopped: the model made the same ${tool} call ${times} times in this turn, with the same arguments.`,
      };
    if (times >= this.limits.remindAt)
      return {
        kind: 'remind',
        times,
        message: `You have made this same ${tool} call ${times} times in this turn, with the same arguments, and it gives the same result. Do not repeat it: try something else, or stop and tell the user what blocks you. At ${this.limits.stopAt} the turn is stopped.`,
      };
    return { kind: 'run' };
  }
}

/** A whole number of at least 1, or the default. */
function positive(n: number | undefined, fallback: number): number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : fallback;
}

/** The answer of a model call not made because the turn was ended: nothing said, stopped. */
export function notCalled(model: Model<Api>, why: string): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const message: AssistantMessage = {
    role: 'assistant',
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: zero,
    stopReason: 'aborted',
    errorMessage: why,
    timestamp: Date.now(),
  };
  stream.push({ type: 'error', reason: 'aborted', error: message });
  stream.end(message);
  return stream;
}
