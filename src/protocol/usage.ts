// Messages between the host and the Usage page (media/src/usage/). The page shows what the host
// sends and asks for two things only: another scope, or a session opened in the Chat view.

/** Calls, tokens and cost: the figures of every line of the page. */
export interface UsageFiguresView {
  readonly calls: number;
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
  readonly cost: number;
}

/** The share of prompt tokens read from the cache (of input, cached and cache-written); null when nothing was sent. */
export function cacheHitShare(f: Pick<UsageFiguresView, 'input' | 'cacheRead' | 'cacheWrite'>): number | null {
  const prompt = f.input + f.cacheRead + f.cacheWrite;
  return prompt > 0 ? f.cacheRead / prompt : null;
}

/** Usage under one key: `provider/model`, or a UTC day (`YYYY-MM-DD`, or `unknown`). */
export interface UsageLineView extends UsageFiguresView {
  readonly key: string;
}

/** A session's own calls (a fork's copy of its source's history counts under the source). */
export interface UsageSessionView extends UsageFiguresView {
  readonly id: string;
  /** Its title as the tree shows it; for a deleted session, a sentence saying so. */
  readonly title: string;
  /** Deleted: only its forks still hold its calls, and it cannot be opened. */
  readonly deleted: boolean;
  /** For a fork: where its inherited history came from, and so where that history is counted. */
  readonly fork: { readonly sourceTitle: string; readonly turn: number | null } | null;
}

/** One agent's own calls in one session: the main agent (`main`) or a subagent (a `task` tool run). */
export interface UsageAgentView extends UsageFiguresView {
  readonly sessionId: string;
  readonly sessionTitle: string;
  /** `main`, or the subagent's id. */
  readonly agentId: string;
  /** The subagent's task; `main` for the main agent. */
  readonly title: string;
}

/** A call that read far less from the prompt cache than the call before it (docs/reference.md, Prompt cache breaks). */
export interface UsageBreakView {
  readonly sessionId: string;
  readonly sessionTitle: string;
  readonly turn: number;
  readonly cause: string;
  /** What changed, the tokens not read from the cache and the cost, in one line. */
  readonly text: string;
  readonly cost: number;
}

export type UsageScope = 'workspace' | 'all';

/** Everything the page shows. */
export interface UsageViewData {
  readonly scope: UsageScope;
  /** The window's folder name; null when no folder is open (only `all` then). */
  readonly workspaceName: string | null;
  /** Today as a UTC day: the chart ends there. */
  readonly today: string;
  readonly total: UsageFiguresView;
  readonly sessions: readonly UsageSessionView[];
  readonly models: readonly UsageLineView[];
  readonly days: readonly UsageLineView[];
  /** The cache breaks of the sessions whose logs were read, newest first. */
  readonly breaks: readonly UsageBreakView[];
  /** The calls beside the turns (suggestions, side questions, compaction summaries), by what they were for. */
  readonly sideCalls: readonly UsageLineView[];
  /** The calls of the sessions whose logs were read, by agent: per session its main agent, then its subagents. */
  readonly agents: readonly UsageAgentView[];
  /** How many sessions' logs the breaks, side calls and agents come from; `more`: the scope has older ones, not read. */
  readonly logsRead: { readonly sessions: number; readonly more: boolean };
  /** Sessions pulled from git remotes in the scope, left out of every figure (another person's calls). */
  readonly sharedLeftOut: number;
}

export type UsageHostMessage = { readonly type: 'usage'; readonly data: UsageViewData };

export type UsagePageMessage =
  { readonly type: 'ready' } | { readonly type: 'scope'; readonly scope: UsageScope } | { readonly type: 'openSession'; readonly id: string };

/** A page message checked field by field (undefined when malformed); extra fields are dropped. */
export function parseUsagePageMessage(raw: unknown): UsagePageMessage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const m = raw as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
      return { type: 'ready' };
    case 'scope':
      return m.scope === 'workspace' || m.scope === 'all' ? { type: 'scope', scope: m.scope } : undefined;
    case 'openSession':
      return typeof m.id === 'string' && /^ses_[0-9A-Za-z]{1,64}$/.test(m.id) ? { type: 'openSession', id: m.id } : undefined;
    default:
      return undefined;
  }
}
