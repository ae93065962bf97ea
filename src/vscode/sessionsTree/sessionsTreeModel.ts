// The Sessions tree's structure, kept free of the vscode API so it can be unit-tested against a
// real index: which nodes sit where, and the words each row shows.
import type { ListFilter, SessionRow, WorkspaceRow } from '../../core/index/indexRows';
import { sharedBy, type UsageTotals } from '../../core/format/sessionState';
import type { SubagentSummary } from '../../core/store/subagents';
import { timeAgo, timeAgoChangesAt } from '../../core/timeAgo';
import { counted } from '../../core/counted';
import { writeFailureOfNote } from '../../core/format/writeFailure';

/** A session; its forks are nested under it. */
export interface SessionNode {
  readonly kind: 'session';
  readonly id: string;
  readonly row: SessionRow;
  readonly forks: readonly SessionNode[];
}

/** The collapsed "Archived" group of one workspace. */
export interface ArchivedNode {
  readonly kind: 'archived';
  readonly id: string;
  readonly workspaceKey: string;
  readonly count: number;
}

/** The collapsed "Shared" group of one workspace: its sessions pulled from a git remote (read-only here). */
export interface SharedNode {
  readonly kind: 'shared';
  readonly id: string;
  readonly workspaceKey: string;
  readonly count: number;
}

/** One workspace, when the tree shows all of them. */
export interface WorkspaceNode {
  readonly kind: 'workspace';
  readonly id: string;
  readonly workspaceKey: string;
  readonly workspaceDir: string;
  /** The folder's name, the label of the node. */
  readonly name: string;
  /** The workspace of this window: listed first and marked. */
  readonly current: boolean;
}

/** A subagent (a `task` tool run) under its session. */
export interface SubagentNode {
  readonly kind: 'subagent';
  readonly id: string;
  readonly sessionId: string;
  readonly agent: SubagentSummary;
}

export type SessionsNode = SessionNode | SharedNode | ArchivedNode | WorkspaceNode | SubagentNode;

/** What the model reads: the index, and the subagents of a session (read from disk on demand). */
export interface SessionsSource {
  list(filter: ListFilter): SessionRow[];
  count(filter: ListFilter): number;
  workspaces(): WorkspaceRow[];
  subagents(sessionId: string): SubagentSummary[];
  /** The workspace a session belongs to (undefined: not in the index). */
  workspaceOf(sessionId: string): string | undefined;
  /** The worktree workspaces this workspace's sessions were forked into: its group lists their sessions too. */
  linkedWorkspaces(workspaceKey: string): string[];
}

/** Rows per group: the index pages, and a tree of more than this is better searched. */
export const GROUP_LIMIT = 500;

/**
 * Nests forks under their source, keeping the rows' order (newest first) at every level. A fork
 * whose source is not among the rows (archived, deleted, or another page) stays at the top.
 */
export function nestForks(rows: readonly SessionRow[]): SessionNode[] {
  const ids = new Set(rows.map((r) => r.id));
  const forksOf = new Map<string, SessionRow[]>();
  for (const r of rows) {
    const source = r.forkedFrom?.sessionId;
    if (source && source !== r.id && ids.has(source)) forksOf.set(source, [...(forksOf.get(source) ?? []), r]);
  }
  const build = (row: SessionRow, seen: Set<string>): SessionNode => {
    // A fork cycle cannot happen on disk, but a hand-edited state.json must not hang the tree.
    const next = new Set(seen).add(row.id);
    const forks = (forksOf.get(row.id) ?? []).filter((f) => !next.has(f.id)).map((f) => build(f, next));
    return { kind: 'session', id: row.id, row, forks };
  };
  return rows.filter((r) => !r.forkedFrom || !ids.has(r.forkedFrom.sessionId) || r.forkedFrom.sessionId === r.id).map((r) => build(r, new Set()));
}

/** The last segment of a workspace path, for POSIX and Windows paths alike. */
export function folderName(dir: string): string {
  return (
    dir
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .pop() || dir
  );
}

/** One node per workspace: this window's first (even before it has sessions), then by recent activity. */
export function workspaceNodes(workspaces: readonly WorkspaceRow[], current?: { key: string; dir: string }): WorkspaceNode[] {
  const node = (key: string, dir: string): WorkspaceNode => ({
    kind: 'workspace',
    id: `workspace:${key}`,
    workspaceKey: key,
    workspaceDir: dir,
    name: folderName(dir),
    current: key === current?.key,
  });
  const others = [...workspaces]
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .filter((w) => w.workspaceKey !== current?.key)
    .map((w) => node(w.workspaceKey, w.workspaceDir));
  return current ? [node(current.key, current.dir), ...others] : others;
}

/**
 * The tree's nodes and their parents. Roots are this workspace's live sessions and its Archived
 * group, or (all workspaces) one node per workspace holding the same. Children are computed
 * when asked, so a collapsed group or session costs nothing; each answer records the parents
 * that `reveal` needs.
 */
export class SessionsTreeModel {
  allWorkspaces = false;
  private readonly parents = new Map<string, SessionsNode | undefined>();
  private readonly nodes = new Map<string, SessionsNode>();

  constructor(
    private readonly source: SessionsSource,
    private readonly current: { key: string; dir: string } | undefined,
  ) {}

  roots(): SessionsNode[] {
    this.parents.clear();
    this.nodes.clear();
    if (this.allWorkspaces) return this.remember(undefined, workspaceNodes(this.source.workspaces(), this.current));
    return this.current ? this.remember(undefined, this.groupOf(this.current.key)) : [];
  }

  children(node: SessionsNode): SessionsNode[] {
    switch (node.kind) {
      case 'workspace':
        return this.remember(node, this.groupOf(node.workspaceKey));
      case 'archived':
        return this.remember(node, this.withForks(nestForks(this.source.list({ workspaceKey: node.workspaceKey, archived: true, limit: GROUP_LIMIT }))));
      case 'shared':
        return this.remember(node, this.withForks(nestForks(this.source.list({ workspaceKey: node.workspaceKey, shared: true, limit: GROUP_LIMIT }))));
      case 'session': {
        // VS Code may hand back a node of an earlier listing; its forks are the latest listing's (a fork just made among them).
        const latest = this.nodes.get(node.id);
        const session = latest?.kind === 'session' ? latest : node;
        const subagents =
          session.row.subagents > 0
            ? this.source.subagents(node.id).map((agent): SubagentNode => ({ kind: 'subagent', id: `${node.id}/${agent.id}`, sessionId: node.id, agent }))
            : [];
        return this.remember(node, [...subagents, ...session.forks]);
      }
      case 'subagent':
        return [];
    }
  }

  parent(node: SessionsNode): SessionsNode | undefined {
    return this.parents.get(node.id);
  }

  /** A node the tree has shown (for reveal), by id. */
  find(id: string): SessionsNode | undefined {
    return this.nodes.get(id);
  }

  /**
   * A session's node for revealing it (a fork just made), listing the levels above it as the
   * tree would: the roots, and with all workspaces shown, the session's workspace.
   */
  locate(id: string): SessionsNode | undefined {
    if (this.find(id)) return this.find(id);
    const roots = this.roots();
    const key = this.allWorkspaces ? this.source.workspaceOf(id) : undefined;
    const workspace = roots.find((n) => n.kind === 'workspace' && n.workspaceKey === key);
    if (workspace) this.children(workspace);
    if (this.find(id)) return this.find(id);
    // A pulled session sits in its workspace's Shared group, listed only when opened.
    for (const group of [...this.nodes.values()].filter((n) => n.kind === 'shared')) this.children(group);
    return this.find(id);
  }

  /**
   * A workspace's live sessions of this machine with forks nested (with the sessions of its
   * worktree forks' workspaces, so a fork into a worktree sits under its source), then its Shared
   * group (sessions pulled from a git remote) and its Archived group, each when it has any.
   */
  private groupOf(workspaceKey: string): SessionsNode[] {
    const rows = [workspaceKey, ...this.source.linkedWorkspaces(workspaceKey)].flatMap((key) =>
      this.source.list({ workspaceKey: key, shared: false, limit: GROUP_LIMIT }),
    );
    rows.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
    const live: SessionsNode[] = this.withForks(nestForks(rows.slice(0, GROUP_LIMIT)));
    const shared = this.source.count({ workspaceKey, shared: true });
    const archived = this.source.count({ workspaceKey, archived: true });
    return [
      ...live,
      ...(shared > 0 ? [{ kind: 'shared' as const, id: `shared:${workspaceKey}`, workspaceKey, count: shared }] : []),
      ...(archived > 0 ? [{ kind: 'archived' as const, id: `archived:${workspaceKey}`, workspaceKey, count: archived }] : []),
    ];
  }

  /** Records nested forks' parents too, so a fork can be revealed before its source was expanded. */
  private withForks(nodes: SessionNode[]): SessionNode[] {
    const walk = (n: SessionNode) =>
      n.forks.forEach((f) => {
        this.parents.set(f.id, n);
        this.nodes.set(f.id, f);
        walk(f);
      });
    nodes.forEach(walk);
    return nodes;
  }

  private remember<T extends SessionsNode>(parent: SessionsNode | undefined, nodes: T[]): T[] {
    for (const n of nodes) {
      this.parents.set(n.id, parent);
      this.nodes.set(n.id, n);
    }
    return nodes;
  }
}

/** When the first relative time of these nodes' sessions changes ("just now" becoming "1 min ago"); undefined when they show none. */
export function nextTimeChange(nodes: readonly SessionsNode[], now: number): number | undefined {
  let next: number | undefined;
  for (const node of nodes) {
    if (node.kind !== 'session') continue;
    const at = timeAgoChangesAt(node.row.updatedAt, now);
    if (next === undefined || at < next) next = at;
  }
  return next;
}

/**
 * A session row's description: who shared it from which machine (a pulled session's) · relative
 * time · git branch (its last turn's) · model id · turns, and the cause when its log could not be
 * written. `named`: a branch the row names already (a worktree fork's), not said twice.
 */
export function sessionDescription(row: SessionRow, now = Date.now(), named?: string): string {
  const failure = writeFailureOfNote(row.error);
  const unsaved = failure ? `not saved: ${failure.kind}` : undefined;
  const branch = row.branch !== named ? row.branch : null;
  const shared = row.shared ? sharedBy(row.shared) : undefined;
  return [shared, timeAgo(row.updatedAt, now), branch, row.model?.id, counted(row.turnCount, 'turn'), unsaved].filter(Boolean).join(' · ');
}

/** Tokens and cost in one line, for tooltips; a fork's totals include the history it inherited, and say so. */
export function usageLine(usage: UsageTotals, forked = false): string {
  return `Tokens${forked ? ' (with the history inherited from the fork source)' : ''}: ${usage.input} in, ${usage.output} out, ${usage.cacheRead} cached · cost $${usage.cost.toFixed(4)}`;
}

const STATUS_ICONS: Record<string, string> = { running: 'sync~spin', error: 'error', interrupted: 'debug-disconnect', aborted: 'circle-slash' };

/** The codicon of a session: its status while it has one worth showing, else a pulled one's, a fork's, archived or plain. */
export function sessionIcon(row: SessionRow): string {
  // A pulled session's open turn ran on the machine that pushed it: nothing runs here.
  const status = row.shared && row.status === 'running' ? undefined : STATUS_ICONS[row.status];
  return status ?? (row.shared ? 'cloud-download' : row.forkedFrom ? 'repo-forked' : row.archived ? 'archive' : 'comment-discussion');
}

/** The codicon of a subagent by how its last answer ended. */
export function subagentIcon(agent: SubagentSummary, sessionRunning: boolean): string {
  if (agent.outcome === 'running') return sessionRunning ? 'sync~spin' : 'debug-disconnect';
  return agent.outcome === 'error' ? 'error' : agent.outcome === 'aborted' ? 'circle-slash' : 'hubot';
}
