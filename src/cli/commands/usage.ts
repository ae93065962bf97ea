import { storeShortForms } from '../../core/format/sessionShortIds';
import { zeroFigures, type UsageFigures, type UsageLine, type UsageReport } from '../../core/index/usageRows';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import { expectPositionals, parseArgs, UsageError } from '../args';
import type { CliContext } from '../context';
import { jsonText, oneLine } from '../terminalText';
import { MAIN_AGENT, readUsageLogs } from '../../core/store/usageLogReader';
import { usageByAgent, type AgentUsageLine } from '../../core/store/agentUsage';
import { cacheBreakLine } from '../../core/format/cacheBreaks';
import { cacheHitShare } from '../../protocol/usage';
import { counted } from '../../core/counted';

const GROUPS = { session: 'bySession', model: 'byModel', day: 'byDay' } as const;
type Group = keyof typeof GROUPS;
const HEADINGS: Record<Group, string> = { session: 'By session', model: 'By model', day: 'By day (UTC)' };

/**
 * `usage [--by session|model|day|agent] [--all] [--include-shared] [--json]`: calls, tokens and cost
 * of this workspace (or every one), each model call counted once however many forks and undos
 * copied it. Sessions pulled from git remotes are another person's calls: left out (and said so)
 * unless `--include-shared`.
 */
export async function usage(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['all', 'json', 'breaks', 'include-shared'], valued: ['by'] });
  expectPositionals(args, []);
  const by = args.options.get('by') as string | undefined;
  const includeShared = args.options.has('include-shared');
  if (args.options.has('breaks')) {
    if (by !== undefined) throw new UsageError('--breaks lists breaks per session; it takes no --by');
    return cacheBreaks(ctx, args.options.has('all'), args.options.has('json'), includeShared);
  }
  if (by === 'agent') return agentUsage(ctx, args.options.has('all'), args.options.has('json'), includeShared);
  if (by !== undefined && !(by in GROUPS)) throw new UsageError('--by is session, model, day or agent');
  const groups = by ? [by as Group] : (Object.keys(GROUPS) as Group[]);
  const all = args.options.has('all');
  const key = all ? undefined : workspaceKey(ctx.workspace);
  if (!ctx.hasStore()) {
    // Nothing to count, and nothing is created: the empty report, and where the data folder is.
    ctx.err(`braid: there is no Braid data in ${ctx.dataDirText()}\n`);
    const empty: UsageReport = { total: zeroFigures(), bySession: [], byModel: [], byDay: [], sharedLeftOut: 0 };
    return printUsage(ctx, empty, groups, all, args.options.has('json'), (id) => id);
  }
  return ctx.withStore(async (store) => {
    // Sessions changed behind the index's back (another process, a crash) are read first.
    await store.index.catchUpWithFolders(key);
    const report = store.index.usageReport(key, { includeShared });
    return printUsage(ctx, report, groups, all, args.options.has('json'), storeShortForms(store.layout));
  });
}

/** Prints the report; `shown` is the form a session is named by (its short form). */
function printUsage(ctx: CliContext, report: UsageReport, groups: readonly Group[], all: boolean, json: boolean, shown: (id: string) => string): number {
  if (json) {
    const value: Record<string, unknown> = { workspace: all ? null : ctx.workspace, total: report.total };
    for (const g of groups) value[GROUPS[g]] = report[GROUPS[g]];
    value.sharedLeftOut = report.sharedLeftOut;
    ctx.out(`${jsonText(value, 2)}\n`);
    return 0;
  }
  const lines = [
    `Usage ${all ? 'in every workspace' : `in ${oneLine(ctx.workspace)}`} (each model call counted once)`,
    '',
    header(),
    row('Total', report.total),
  ];
  for (const g of groups) lines.push('', HEADINGS[g], ...linesOf(report, g, shown));
  lines.push(...sharedNote(report.sharedLeftOut));
  ctx.out(`${lines.join('\n')}\n`);
  return 0;
}

/** The note under a report that left sessions pulled from git remotes out (none when it left none out). */
function sharedNote(leftOut: number | undefined): string[] {
  if (!leftOut) return [];
  return ['', `(${counted(leftOut, 'session')} pulled from git remotes not counted: another person's calls; --include-shared counts them)`];
}

function linesOf(report: UsageReport, group: Group, shown: (id: string) => string): string[] {
  if (report[GROUPS[group]].length === 0) return ['  (no usage yet)'];
  if (group !== 'session') return report[GROUPS[group]].map((l: UsageLine) => row(l.key, l));
  return report.bySession.map((l) =>
    row(`${shown(l.key)}  ${l.title === null ? '(deleted; its calls are kept in forks)' : oneLine(l.title) || '(untitled)'}`, l),
  );
}

function header(): string {
  return `${['calls', 'input', 'cached', 'output', 'cost'].map((h) => h.padStart(10)).join('')}`;
}

/** The figures first, in fixed columns (`hits`: one more, the cache-hit share), then the label (a session's id and title can be long). */
function row(label: string, f: Pick<UsageFigures, 'calls' | 'input' | 'cacheRead' | 'output' | 'cost'>, hits?: string): string {
  const cells = [f.calls, f.input, f.cacheRead, f.output].map((n) => String(n).padStart(10)).join('');
  return `${cells}${f.cost.toFixed(4).padStart(10)}${hits === undefined ? '' : hits.padStart(8)}  ${label}`;
}

/** `usage --breaks`: per session its cache-hit ratio and its cache breaks, newest sessions first. */
async function cacheBreaks(ctx: CliContext, all: boolean, json: boolean, includeShared: boolean): Promise<number> {
  if (!ctx.hasStore()) {
    ctx.err(`braid: there is no Braid data in ${ctx.dataDirText()}\n`);
    ctx.out(json ? `${jsonText({ workspace: all ? null : ctx.workspace, sessions: [] }, 2)}\n` : 'no cache breaks\n');
    return 0;
  }
  return ctx.withStore(async (store) => {
    const key = all ? undefined : workspaceKey(ctx.workspace);
    await store.index.catchUpWithFolders(key);
    const logs = readUsageLogs(store, key, undefined, includeShared);
    const sessions = logs.sessions.map(({ row, breaks }) => ({ id: row.id, title: row.title, hitRatio: cacheHitShare(row.usage), breaks }));
    if (json) {
      ctx.out(`${jsonText({ workspace: all ? null : ctx.workspace, sessions, more: logs.more, sharedLeftOut: logs.sharedLeftOut ?? 0 }, 2)}\n`);
      return 0;
    }
    const shown = storeShortForms(store.layout);
    const lines = [`Prompt cache breaks ${all ? 'in every workspace' : `in ${oneLine(ctx.workspace)}`}`];
    for (const s of sessions) {
      lines.push(
        '',
        `${shown(s.id)}  ${oneLine(s.title) || '(untitled)'}  cache hits ${percent(s.hitRatio)}, ${s.breaks.length === 1 ? '1 break' : `${s.breaks.length} breaks`}`,
      );
      for (const b of s.breaks) lines.push(oneLine(`  turn ${String(b.turn).padStart(3)}  ${b.cause.padEnd(17)} ${cacheBreakLine(b)}`));
    }
    if (sessions.length === 0) lines.push('', '  (no sessions)');
    if (logs.more) lines.push('', `(the ${sessions.length} sessions updated last; older ones are not read)`);
    lines.push(...sharedNote(logs.sharedLeftOut));
    ctx.out(`${lines.join('\n')}\n`);
    return 0;
  });
}

/** `usage --by agent`: per session, its main agent's and each subagent's calls, from the logs of the sessions updated last. */
async function agentUsage(ctx: CliContext, all: boolean, json: boolean, includeShared: boolean): Promise<number> {
  const where = all ? 'in every workspace' : `in ${oneLine(ctx.workspace)}`;
  const print = (agents: AgentUsageLine[], more: boolean, shown: (id: string) => string, sharedLeftOut = 0): number => {
    if (json) {
      const byAgent = agents.map((a) => ({ ...a, cacheHits: cacheHitShare(a) }));
      ctx.out(`${jsonText({ workspace: all ? null : ctx.workspace, byAgent, more, sharedLeftOut }, 2)}\n`);
      return 0;
    }
    const lines = [`Usage by agent ${where} (each model call counted once)`, '', `${header()}${'hits'.padStart(8)}`];
    for (const a of agents) {
      const label = a.agentId === MAIN_AGENT ? `main  ${oneLine(a.sessionTitle) || '(untitled)'}` : `${a.agentId}  ${oneLine(a.title) || '(untitled)'}`;
      lines.push(row(`${shown(a.sessionId)}  ${label}`, a, percent(cacheHitShare(a))));
    }
    if (agents.length === 0) lines.push('  (no usage yet)');
    if (more) lines.push('', `(the sessions updated last; older ones are not read)`);
    lines.push(...sharedNote(sharedLeftOut));
    ctx.out(`${lines.join('\n')}\n`);
    return 0;
  };
  if (!ctx.hasStore()) {
    ctx.err(`braid: there is no Braid data in ${ctx.dataDirText()}\n`);
    return print([], false, (id) => id);
  }
  return ctx.withStore(async (store) => {
    const key = all ? undefined : workspaceKey(ctx.workspace);
    await store.index.catchUpWithFolders(key);
    const logs = readUsageLogs(store, key, undefined, includeShared);
    return print(usageByAgent(store, logs), logs.more, storeShortForms(store.layout), logs.sharedLeftOut);
  });
}

const percent = (ratio: number | null) => (ratio === null ? '-' : `${(ratio * 100).toFixed(1)}%`);
