import type { AssistantMessage } from '@mariozechner/pi-ai';
import type { MessageRecord } from '../wire/records';
import { scanWireLog } from '../wire/wireReader';
import type { StoreLayout } from '../format/layout';
import { zeroUsage, type SessionState, type UsageTotals } from '../format/sessionState';
import { addToTotals } from '../format/usage';

/** A subagent (a `task` tool run) of a session, as the Sessions tree shows it. */
export interface SubagentSummary {
  readonly id: string;
  /** The task's description, as the parent gave it. */
  readonly title: string;
  /** Summed from the subagent's assistant messages. */
  readonly usage: UsageTotals;
  readonly messageCount: number;
  /** How its last answer ended: `stop`, `error`, `aborted`, ... or `running` when it has none yet. */
  readonly outcome: string;
  readonly updatedAt: number;
}

/**
 * The subagents of a session, oldest first, with what their own logs say. Each subagent writes a
 * small log of its own (agents/<id>/wire.jsonl), so this reads those and never the main log; the
 * tree calls it only when a session's node is expanded.
 */
export function readSubagents(layout: StoreLayout, sessionDir: string, state: Pick<SessionState, 'agents'>): SubagentSummary[] {
  return state.agents
    .filter((a) => a.parentId !== null)
    .map((agent) => {
      const usage = zeroUsage();
      let messageCount = 0;
      let outcome = 'running';
      let updatedAt = 0;
      scanWireLog(
        layout.agentLog(sessionDir, agent.id),
        (record) => {
          updatedAt = Math.max(updatedAt, record.ts);
          if (record.t !== 'message') return;
          messageCount++;
          const message = (record as MessageRecord).message;
          if (message.role !== 'assistant') return;
          const { usage: u, stopReason } = message as AssistantMessage;
          addToTotals(usage, { input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, reasoning: 0, cost: u.cost.total });
          // A tool call means the subagent goes on; any other stop ends it.
          outcome = stopReason === 'toolUse' ? 'running' : stopReason;
        },
        { only: ['agent', 'message'] },
      );
      return { id: agent.id, title: agent.title, usage, messageCount, outcome, updatedAt };
    });
}
