// What the Usage page shows, from the index's usage report (each model call counted once, the
// same figures as `braid usage`). Free of the vscode API, so it is unit-tested against a real index.
import type { SessionRow } from '../../core/index/indexRows';
import type { UsageFigures, UsageReport } from '../../core/index/usageRows';
import { sessionLabel } from '../../core/format/titles';
import type { UsageFiguresView, UsageScope, UsageSessionView, UsageViewData } from '../../protocol/usage';

function figures(f: UsageFigures): UsageFiguresView {
  return { calls: f.calls, input: f.input, cacheRead: f.cacheRead, cacheWrite: f.cacheWrite, output: f.output, cost: f.cost };
}

/** Where the page is and what it counts: the scope shown, the window's folder, today. */
export interface UsageViewContext {
  readonly scope: UsageScope;
  readonly workspaceName: string | null;
  readonly now: number;
}

/** The page's data; `row` looks a session up in the index (forks name their source, and a deleted one is not there). */
export function usageViewData(report: UsageReport, row: (id: string) => SessionRow | undefined, context: UsageViewContext): UsageViewData {
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
  };
}
