import type { AssistantMessage } from '@mariozechner/pi-ai';
import type { UsageRecord } from '../wire/records';

/**
 * The usage record of one model call, from the answer it returned. `messageId` is the call's
 * stable id (see {@link UsageRecord.messageId}); `startedAt` is when the answer began.
 */
export function callUsage(answer: AssistantMessage, messageId: string, startedAt: number, purpose?: string): Omit<UsageRecord, 'v' | 'ts' | 't' | 'turn'> {
  return {
    messageId,
    provider: answer.provider,
    model: answer.model,
    input: answer.usage.input,
    output: answer.usage.output,
    cacheRead: answer.usage.cacheRead,
    cacheWrite: answer.usage.cacheWrite,
    reasoning: (answer.usage as { reasoning?: number }).reasoning ?? 0,
    cost: answer.usage.cost.total,
    latencyMs: Date.now() - startedAt,
    stopReason: answer.stopReason,
    ...(purpose ? { purpose } : {}),
  };
}
