// What the Usage page shows, from the index's usage report (each model call counted once, the
// same figures as `braid usage`). Free of the vscode API, so it is unit-tested against a real index.
import type { SessionRow } from '../../core/index/indexRows';
import type { UsageFigures, UsageReport } from '../../core/index/usageRows';
import { sessionLabel } from '../../core/format/titles';
import type { UsageBreakView, UsageFiguresView, UsageLineView, UsageScope, UsageSessionView, UsageViewData } from '../../protocol/usage';
import { SIDE_CALL_PURPOSES, type SideCallPurpose, type UsageLogs } from '../../core/store/usageLogReader';
import { cacheBreakLine } from '../../core/format/cacheBreaks';
import type { AgentUsageLine } from '../../core/store/agentUsage';

function figures(f: Omit<UsageFigures, 'reasoning'>): UsageFiguresView {
  return { calls: f.calls, input: f.input, cacheRead: f.cacheRead, cacheWrite: f.cacheWrite, output: f.output, cost: f.cost };
}

/** Where the page is and what it counts: the scope shown, the window's folder, today. */
export interface UsageViewContext {
  readonly scope: UsageScope;
  readonly workspaceName: string | null;
  readonly now: number;
}

/** What each side call's purpose is called on the page. */
const SIDE_CALL_NAMES: Record<SideCallPurpose, string> = {
  suggestion: 'Next-prompt suggestions',
  'side-question': 'Side questions (/btw)',
  compaction: 'Compaction summaries',
  memory: 'Session memory',
};

/**
 * The page's data; `row` looks a session up in the index (forks name their source, and a deleted
 * one is not there); `logs` are what the sessions' logs say beyond the index (cache breaks, side
 * calls), and `agents` their calls by agent (usageByAgent).
 */
export function usageViewData(
  report: UsageReport,
  row: (id: string) => SessionRow | undefined,
  context: UsageViewContext,
  logs: UsageLogs = { sessions: [], more: false },
  agents: readonly AgentUsageLine[] = [],
): UsageViewData {
  const sessions = report.bySession.map((line): UsageSessionView => {
    const session = row(line.key);
    const source = session?.forkedFrom ? row(session.forkedFrom.sessionId) : undefined;
    return {
      id: line.key,
      ...figures(line),
      title: line.title === null ? `Deleted session ${line.key}` : sessionLabel({ title: line.title }),
      deleted: line.title === null,
      fork: session?.forkedFrom ? { sourceTitle: source ? sessionLabel(source) : 'a deleted session', turn: session.forkedFrom.turn } : null,
    };
  });
  return {
    scope: context.scope,
    workspaceName: context.workspaceName,
    today: new Date(context.now).toISOString().slice(0, 10),
    total: figures(report.total),
    sessions,
    models: report.byModel.map((l) => ({ key: l.key, ...figures(l) })),
    days: report.byDay.map((l) => ({ key: l.key, ...figures(l) })),
    breaks: breaksOf(logs),
    sideCalls: sideCallsOf(logs),
    agents: agents.map((a) => ({ sessionId: a.sessionId, sessionTitle: a.sessionTitle, agentId: a.agentId, title: a.title, ...figures(a) })),
    logsRead: { sessions: logs.sessions.length, more: logs.more },
    sharedLeftOut: report.sharedLeftOut,
  };
}

function breaksOf(logs: UsageLogs): UsageBreakView[] {
  const breaks = logs.sessions.flatMap(({ row, breaks }) =>
    breaks.map((b) => ({
      ts: b.ts,
      view: { sessionId: row.id, sessionTitle: sessionLabel(row), turn: b.turn, cause: b.cause, text: cacheBreakLine(b), cost: b.cost },
    })),
  );
  return breaks.sort((a, b) => b.ts - a.ts).map((b) => b.view);
}

function sideCallsOf(logs: UsageLogs): UsageLineView[] {
  return SIDE_CALL_PURPOSES.flatMap((purpose) => {
    const all = logs.sessions.map((s) => s.sideCalls[purpose]).filter((f) => f !== undefined);
    if (all.length === 0) return [];
    const sum = (k: 'calls' | 'input' | 'cacheRead' | 'output' | 'cost') => all.reduce((n, f) => n + f[k], 0);
    return [
      {
        key: SIDE_CALL_NAMES[purpose],
        calls: sum('calls'),
        input: sum('input'),
        cacheRead: sum('cacheRead'),
        cacheWrite: 0,
        output: sum('output'),
        cost: sum('cost'),
      },
    ];
  });
}
