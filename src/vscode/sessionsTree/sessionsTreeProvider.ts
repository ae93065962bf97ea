import fs from 'node:fs';
import * as vscode from 'vscode';
import type { SessionStore } from '../../core/store/sessionStore';
import { readSubagents } from '../../core/store/subagents';
import { linkedWorkspaces } from '../../core/store/worktreeFork';
import type { WorktreeLocation } from '../../core/format/sessionState';
import { sessionLabel, storedTitleLabel } from '../../core/format/titles';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import { Disposable } from '../disposable';
import { TimeRedraw } from './timeRedraw';
import {
  nextTimeChange,
  sessionDescription,
  sessionIcon,
  SessionsTreeModel,
  subagentIcon,
  usageLine,
  type SessionNode,
  type SessionsNode,
  type SessionsSource,
  type SubagentNode,
} from './sessionsTreeModel';
import { counted } from '../../core/counted';
import { listSessionFolders } from '../../core/format/layout';
import { sessionShortForms } from '../../core/format/sessionShortIds';

/** What the tree lists, and a way to hear that it changed. */
export type FollowedSource = SessionsSource & {
  onDidChange(listener: () => void): () => void;
  /** Where a fork runs when it has a worktree of its own (read from its index row's state). */
  runLocationOf(id: string): WorktreeLocation | undefined;
  /** The subagent a fork holds the conversation of (read from its index row's state), if it holds one's. */
  forkedAgentOf(id: string): string | undefined;
  /** The short form the session is shown by (the end of its id that no other session shares). */
  shortIdOf(id: string): string;
};

/** The tree's rows from the store's index (which follows other windows and the CLI); subagents from their own logs, read on expand. */
export function indexSource(store: SessionStore): FollowedSource {
  let forms = sessionShortForms([]);
  return {
    list: (filter) => store.index.list(filter),
    count: (filter) => store.index.count(filter),
    workspaces: () => store.index.workspaces(),
    workspaceOf: (id) => store.index.get(id)?.workspaceKey,
    linkedWorkspaces: (key) => linkedWorkspaces(store, key),
    subagents: (id) => {
      try {
        return readSubagents(store.layout, store.locate(id), store.get(id));
      } catch {
        return []; // the session went away since the tree listed it
      }
    },
    onDidChange: (listener) => store.index.onDidChange(listener),
    runLocationOf: (id) => store.index.stateOf(id)?.runLocation,
    forkedAgentOf: (id) => store.index.stateOf(id)?.forkedFrom?.agentId,
    shortIdOf: (id) => {
      // Made again when a session it has not seen is asked for (one made since).
      if (!forms.has(id)) forms = sessionShortForms([...listSessionFolders(store.layout).map((f) => f.id), id]);
      return forms.get(id) ?? id;
    },
  };
}

/** The tree without a store (it failed to open, and said so): nothing to list. */
export const NO_SESSIONS: FollowedSource = {
  list: () => [],
  count: () => 0,
  workspaces: () => [],
  workspaceOf: () => undefined,
  linkedWorkspaces: () => [],
  subagents: () => [],
  onDidChange: () => () => undefined,
  runLocationOf: () => undefined,
  forkedAgentOf: () => undefined,
  shortIdOf: (id) => id,
};

/** The context key that says the tree shows every workspace (it swaps the toggle's icon). */
export const ALL_WORKSPACES_KEY = 'braid.allWorkspaces';

/**
 * The Sessions tree: this workspace's sessions from the index, newest first, with
 * forks nested, subagents under their session and an Archived group; or every workspace's. It
 * follows the index, so sessions another window or the CLI creates or changes show up without a
 * refresh, and running sessions spin while their turn runs.
 */
export class SessionsTreeProvider extends Disposable implements vscode.TreeDataProvider<SessionsNode> {
  private readonly changed = new vscode.EventEmitter<SessionsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly model: SessionsTreeModel;
  private times: TimeRedraw | undefined;

  constructor(
    private readonly source: FollowedSource,
    workspaceDir: string | undefined,
  ) {
    super();
    this._register({ dispose: () => this.times?.cancel() });
    this._register({ dispose: source.onDidChange(() => this.refresh()) });
    this._register(this.changed);
    this.model = new SessionsTreeModel(source, workspaceDir ? { key: workspaceKey(workspaceDir), dir: workspaceDir } : undefined);
  }

  get allWorkspaces(): boolean {
    return this.model.allWorkspaces;
  }

  /** Shows every workspace's sessions, or this one's; the context key swaps the title action. */
  async showAllWorkspaces(on: boolean): Promise<void> {
    this.model.allWorkspaces = on;
    await vscode.commands.executeCommand('setContext', ALL_WORKSPACES_KEY, on);
    this.refresh();
  }

  /** Keeps relative times ("2 min ago") true: a redraw when the first of them changes, while the view is visible. */
  followClock(view: vscode.TreeView<SessionsNode>): vscode.Disposable {
    const times = new TimeRedraw(
      () => this.refresh(),
      () => view.visible,
    );
    this.times = times;
    const visibility = view.onDidChangeVisibility((e) => e.visible && times.shown());
    return { dispose: () => (visibility.dispose(), times.cancel()) };
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** The node of a session, for revealing it. */
  node(id: string): SessionsNode | undefined {
    return this.model.locate(id);
  }

  getTreeItem(node: SessionsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'session':
        return this.sessionItem(node);
      case 'subagent':
        return this.subagentItem(node);
      case 'shared': {
        const item = new vscode.TreeItem('Shared', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.id;
        item.description = String(node.count);
        item.tooltip = 'Sessions pulled from a git remote (braid pull): read-only here; fork one to continue it.';
        item.iconPath = new vscode.ThemeIcon('cloud-download');
        item.contextValue = 'braid.sharedGroup';
        return item;
      }
      case 'archived': {
        const item = new vscode.TreeItem('Archived', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.id;
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon('archive');
        item.contextValue = 'braid.archivedGroup';
        return item;
      }
      case 'workspace': {
        const item = new vscode.TreeItem(node.name, node.current ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.id;
        item.description = node.current ? `${node.workspaceDir} · this workspace` : node.workspaceDir;
        item.tooltip = node.workspaceDir;
        item.iconPath = new vscode.ThemeIcon(node.current ? 'home' : 'folder');
        item.contextValue = 'braid.workspace';
        return item;
      }
    }
  }

  private sessionItem(node: SessionNode): vscode.TreeItem {
    const { row } = node;
    // Forks show at once; subagents are read from disk only when the user expands the session.
    const state =
      node.forks.length > 0
        ? vscode.TreeItemCollapsibleState.Expanded
        : row.subagents > 0
          ? vscode.TreeItemCollapsibleState.Collapsed
          : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(sessionLabel(row), state);
    // VS Code keeps the folding it last showed for an id: a session shown folded (for its
    // subagents) would hide a first fork made by the CLI, another window or an import. Having forks
    // changes the id, so the row unfolds then; the user's folding of it is kept from there on.
    item.id = node.forks.length > 0 ? `${node.id}:forks` : node.id;
    // Only forks can run in a worktree of their own: the other rows cost no read of their state.
    const location = row.forkedFrom ? this.source.runLocationOf(row.id) : undefined;
    const agent = row.forkedFrom ? this.source.forkedAgentOf(row.id) : undefined;
    const origin = location ? worktreeWords(location) : agent ? 'from a subagent' : undefined;
    const description = sessionDescription(row, Date.now(), location?.branch);
    item.description = origin ? `${origin} · ${description}` : description;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendText(`${sessionLabel(row)}\n`);
    tooltip.appendMarkdown(
      `\n\`${this.source.shortIdOf(row.id)}\` (\`${row.id}\`) · ${row.status}${row.archived ? ' · archived' : ''}${row.model ? ` · ${row.model.provider}/${row.model.id}` : ''}\n\n`,
    );
    tooltip.appendText(usageLine(row.usage, row.forkedFrom !== null));
    if (row.branch) tooltip.appendText(`\n\nGit branch: ${row.branch} (its last turn's)`);
    if (row.error) tooltip.appendText(`\n\nError: ${row.error}`);
    if (agent)
      tooltip.appendText(
        `\n\nForked from the subagent ${agent}${row.forkedFrom?.turn ? ` of turn ${row.forkedFrom.turn}` : ''}: it holds that subagent's conversation`,
      );
    if (location) tooltip.appendText(`\n\nRuns in the worktree ${location.worktree} (branch ${location.branch}, from ${location.repository})`);
    if (row.shared)
      tooltip.appendText(
        `\n\nShared by ${row.shared.author} on ${row.shared.machineName}, pulled from ${row.shared.remote}: read-only here; fork it to continue`,
      );
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon(location && row.status === 'idle' ? 'git-branch' : sessionIcon(row));
    item.contextValue = sessionContext(row, location);
    item.command = { command: 'braid.openSession', title: 'Open Session', arguments: [row.id] };
    return item;
  }

  private subagentItem(node: SubagentNode): vscode.TreeItem {
    const { agent } = node;
    const title = storedTitleLabel(agent.title);
    const item = new vscode.TreeItem(title || 'Subagent', vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.description = `subagent · ${counted(agent.messageCount, 'message')}`;
    item.tooltip = new vscode.MarkdownString()
      .appendText(`${title}\n`)
      .appendMarkdown(`\n\`${agent.id}\` · ${agent.outcome}\n\n`)
      .appendText(usageLine(agent.usage));
    const parent = this.model.parent(node);
    item.iconPath = new vscode.ThemeIcon(subagentIcon(agent, parent?.kind === 'session' && parent.row.status === 'running'));
    item.contextValue = 'braid.subagent';
    // Opening the subagent opens its session: its transcript shows the task call and answer.
    item.command = { command: 'braid.openSession', title: 'Open Session', arguments: [node.sessionId] };
    return item;
  }

  getChildren(node?: SessionsNode): SessionsNode[] {
    const nodes = node ? this.model.children(node) : this.model.roots();
    // The times these rows show: each listing says when its first one changes; the earliest stands.
    this.times?.expect(nextTimeChange(nodes, Date.now()));
    return nodes;
  }

  getParent(node: SessionsNode): SessionsNode | undefined {
    return this.model.parent(node);
  }
}

/** What a session's row offers in its menu (package.json's view/item/context): a pulled one no rewind, a worktree fork Finish. */
function sessionContext(row: SessionNode['row'], location: WorktreeLocation | undefined): string {
  if (row.archived) return 'braid.session.archived';
  if (row.shared) return 'braid.session.shared';
  return location && !location.finished ? 'braid.session.worktree' : 'braid.session';
}

/** A worktree fork's words on its row: the branch, and whether it was finished or its folder is gone. */
function worktreeWords(location: WorktreeLocation): string {
  if (location.finished) return `${location.branch} (finished: ${location.finished.how})`;
  return fs.existsSync(location.worktree) ? location.branch : `${location.branch} (worktree folder missing)`;
}
