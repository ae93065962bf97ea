import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import type { SessionStore } from '../../core/store/sessionStore';
import { registerCommands } from '../commands';
import type { CommandContext } from '../commands/commandContext';
import { importCommands } from '../commands/importSessions';
import { lifecycleCommands } from '../commands/lifecycleCommands';
import { refreshSessionsCommand } from '../commands/refreshSessions';
import { newSessionCommand, openSessionCommand } from '../commands/sessionCommands';
import { restoreTreeMode, workspaceToggleCommands } from '../commands/workspaceToggle';
import type { SessionsNode } from './sessionsTreeModel';
import { indexSource, NO_SESSIONS, SessionsTreeProvider } from './sessionsTreeProvider';

/** The Sessions tree, and how to show a session's row in it. */
export interface SessionsTree {
  readonly sessions: SessionsTreeProvider;
  readonly view: vscode.TreeView<SessionsNode>;
  revealSession(id: string): void;
}

/** The Sessions tree in the side bar, in the mode (this workspace, or all) it was left in. */
export async function registerSessionsTree(
  context: vscode.ExtensionContext,
  deps: { store: SessionStore | undefined; workspaceDir: string | undefined; logger: Logger },
): Promise<SessionsTree> {
  const sessions = new SessionsTreeProvider(deps.store ? indexSource(deps.store) : NO_SESSIONS, deps.workspaceDir);
  const treeView = vscode.window.createTreeView('braid.sessions', { treeDataProvider: sessions, showCollapseAll: true });
  context.subscriptions.push(sessions, treeView, sessions.followClock(treeView));
  await restoreTreeMode(sessions, context.workspaceState);
  /**
   * Shows a session's row (a new fork under its source), once the index has it. VS Code takes in
   * a tree's changes a moment after they are announced (it debounces them), so a reveal right
   * after a fork can meet the listing from before it: it is tried again a few times.
   */
  const revealSession = (id: string, attempt = 1): void => {
    const node = sessions.node(id);
    const failed = (why: string) => {
      if (attempt < 4) setTimeout(() => revealSession(id, attempt + 1), 250);
      else deps.logger.warn(`could not show session ${id} in the Sessions tree: ${why}`);
    };
    if (!node) failed('it is not listed there');
    else void treeView.reveal(node, { select: true, focus: false, expand: true }).then(undefined, (err: unknown) => failed(errorMessage(err)));
  };
  return { sessions, view: treeView, revealSession };
}

/** The commands on sessions as a whole: new, open, refresh, the tree's scope, archive and the rest of a session's life, import. */
export function registerSessionCommands(context: vscode.ExtensionContext, ctx: CommandContext, tree: SessionsTree): void {
  registerCommands(context, ctx.logger, [
    refreshSessionsCommand(ctx, tree.sessions),
    ...workspaceToggleCommands(tree.sessions, context.workspaceState),
    newSessionCommand(ctx.chat),
    openSessionCommand(ctx),
    ...lifecycleCommands(ctx),
    ...importCommands(ctx),
  ]);
}
