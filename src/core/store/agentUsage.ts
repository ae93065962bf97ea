import { readAgents } from '../format/summary';
import { sessionLabel } from '../format/titles';
import { MAIN_AGENT, type CallFigures, type UsageLogs } from './usageLogReader';
import type { SessionStore } from './sessionStore';

/** One agent's own calls in one session: the main agent (`main`) or a subagent (a `task` tool run). */
export interface AgentUsageLine extends CallFigures {
  readonly sessionId: string;
  readonly sessionTitle: string;
  /** `main`, or the subagent's id (what `braid fork --agent` takes). */
  readonly agentId: string;
  /** The subagent's task as its parent gave it; `main` for the main agent. */
  readonly title: string;
}

/**
 * The calls of the sessions the logs were read of, by agent: per session (in the logs' order,
 * the most recently updated first) its main agent, then its subagents in the order they began.
 * A fork's copy of its source's calls counts under the source, as everywhere.
 */
export function usageByAgent(store: SessionStore, logs: UsageLogs): AgentUsageLine[] {
  return logs.sessions.flatMap(({ row, agents }) => {
    const ids = Object.keys(agents);
    if (ids.length === 0) return [];
    const titles = new Map<string, string>();
    if (ids.some((id) => id !== MAIN_AGENT)) {
      try {
        for (const a of readAgents(store.locate(row.id))) titles.set(a.id, a.title);
      } catch {
        // deleted since the logs were read: the ids alone
      }
    }
    const order = (id: string) => (id === MAIN_AGENT ? '' : id);
    return ids
      .sort((a, b) => order(a).localeCompare(order(b)))
      .map((agentId) => ({
        sessionId: row.id,
        sessionTitle: sessionLabel(row),
        agentId,
        title: agentId === MAIN_AGENT ? MAIN_AGENT : (titles.get(agentId) ?? agentId),
        ...agents[agentId]!,
      }));
  });
}
