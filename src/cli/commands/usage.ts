import { zeroFigures, type UsageFigures, type UsageLine, type UsageReport } from '../../core/index/usageRows';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import { expectPositionals, parseArgs, UsageError } from '../args';
import type { CliContext } from '../context';
import { jsonText, oneLine } from '../terminalText';

const GROUPS = { session: 'bySession', model: 'byModel', day: 'byDay' } as const;
type Group = keyof typeof GROUPS;
const HEADINGS: Record<Group, string> = { session: 'By session', model: 'By model', day: 'By day (UTC)' };

/**
 * `usage [--by session|model|day] [--all] [--json]`: calls, tokens and cost of this workspace (or
 * every one), each model call counted once however many forks and undos copied it.
 */
export async function usage(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['all', 'json'], valued: ['by'] });
  expectPositionals(args, []);
  const by = args.options.get('by') as string | undefined;
  if (by !== undefined && !(by in GROUPS)) throw new UsageError('--by is session, model or day');
  const groups = by ? [by as Group] : (Object.keys(GROUPS) as Group[]);
  const all = args.options.has('all');
  const key = all ? undefined : workspaceKey(ctx.workspace);
  if (!ctx.hasStore()) {
    // Nothing to count, and nothing is created: the empty report, and where the data folder is.
    ctx.err(`braid: there is no Braid data in ${ctx.dataDirText()}\n`);
    return printUsage(ctx, { total: zeroFigures(), bySession: [], byModel: [], byDay: [] }, groups, all, args.options.has('json'));
  }
  return ctx.withStore(async (store) => {
    // Sessions changed behind the index's back (another process, a crash) are read first.
    await store.index.catchUpWithFolders(key);
    return printUsage(ctx, store.index.usageReport(key), groups, all, args.options.has('json'));
  });
}

function printUsage(ctx: CliContext, report: UsageReport, groups: readonly Group[], all: boolean, json: boolean): number {
  if (json) {
    const value: Record<string, unknown> = { workspace: all ? null : ctx.workspace, total: report.total };
    for (const g of groups) value[GROUPS[g]] = report[GROUPS[g]];
    ctx.out(`${jsonText(value, 2)}\n`);
    return 0;
  }
  const lines = [
    `Usage ${all ? 'in every workspace' : `in ${oneLine(ctx.workspace)}`} (each model call counted once)`,
    '',
    header(),
    row('Total', report.total),
  ];
  for (const g of groups) lines.push('', HEADINGS[g], ...linesOf(report, g));
  ctx.out(`${lines.join('\n')}\n`);
  return 0;
}

function linesOf(report: UsageReport, group: Group): string[] {
  if (report[GROUPS[group]].length === 0) return ['  (no usage yet)'];
  if (group !== 'session') return report[GROUPS[group]].map((l: UsageLine) => row(l.key, l));
  return report.bySession.map((l) => row(`${l.key}  ${l.title === null ? '(deleted; its calls are kept in forks)' : oneLine(l.title) || '(untitled)'}`, l));
}

function header(): string {
  return `${['calls', 'input', 'cached', 'output', 'cost'].map((h) => h.padStart(10)).join('')}`;
}

/** The figures first, in fixed columns, then the label (a session's id and title can be long). */
function row(label: string, f: UsageFigures): string {
  const cells = [f.calls, f.input, f.cacheRead, f.output].map((n) => String(n).padStart(10)).join('');
  return `${cells}${f.cost.toFixed(4).padStart(10)}  ${label}`;
}
