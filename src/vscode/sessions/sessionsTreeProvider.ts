import * as vscode from 'vscode';
import type { SessionRow } from '../../core/index/indexRows';
import type { SessionStore } from '../../core/store/sessionStore';
import { workspaceKey } from '../../core/workspace/workspaceKey';

const STATUS_ICON: Record<string, string> = { running: 'sync~spin', error: 'error', interrupted: 'debug-disconnect', aborted: 'circle-slash' };

/** "5 min ago" style times for the tree's descriptions. */
export function relativeTime(ts: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ts) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/**
 * The Sessions tree: this workspace's sessions from the index, newest first. It follows the
 * index, so sessions another window or the CLI creates or changes show up without a refresh.
 */
export class SessionsTreeProvider implements vscode.TreeDataProvider<SessionRow>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionRow | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly unsubscribe: () => void;

  constructor(private readonly store: SessionStore | undefined, private readonly workspaceDir: string | undefined) {
    this.unsubscribe = store ? store.index.onDidChange(() => this.refresh()) : () => undefined;
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** The row of a session, for revealing it. */
  row(id: string): SessionRow | undefined {
    return this.rows().find((r) => r.id === id);
  }

  getTreeItem(row: SessionRow): vscode.TreeItem {
    const hasForks = this.rows().some((r) => r.forkedFrom?.sessionId === row.id);
    const item = new vscode.TreeItem(row.title || row.firstPrompt || 'Untitled session', hasForks ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = row.id;
    item.description = `${relativeTime(row.updatedAt)} · ${row.turnCount} turn${row.turnCount === 1 ? '' : 's'}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendText(`${row.title || row.firstPrompt}\n`);
    tooltip.appendMarkdown(`\n\`${row.id}\` · ${row.status}${row.model ? ` · ${row.model.id}` : ''}\n\n`);
    tooltip.appendText(`Tokens: ${row.usage.input} in, ${row.usage.output} out, ${row.usage.cacheRead} cached · cost ${row.usage.cost.toFixed(4)}`);
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon(STATUS_ICON[row.status] ?? 'comment-discussion');
    item.contextValue = row.archived ? 'braid.session.archived' : 'braid.session';
    item.command = { command: 'braid.openSession', title: 'Open Session', arguments: [row.id] };
    return item;
  }

  /** Forks sit under their source; a fork whose source is not listed sits at the top. */
  getChildren(element?: SessionRow): SessionRow[] {
    const rows = this.rows();
    if (element) return rows.filter((r) => r.forkedFrom?.sessionId === element.id);
    const ids = new Set(rows.map((r) => r.id));
    return rows.filter((r) => !r.forkedFrom || !ids.has(r.forkedFrom.sessionId));
  }

  getParent(element: SessionRow): SessionRow | undefined {
    return element.forkedFrom ? this.rows().find((r) => r.id === element.forkedFrom!.sessionId) : undefined;
  }

  private rows(): SessionRow[] {
    if (!this.store || !this.workspaceDir) return [];
    return this.store.index.list({ workspaceKey: workspaceKey(this.workspaceDir), limit: 500 });
  }

  dispose(): void {
    this.unsubscribe();
    this.changed.dispose();
  }
}
