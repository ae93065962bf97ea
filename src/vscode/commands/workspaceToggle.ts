import type * as vscode from 'vscode';
import type { SessionsTreeProvider } from '../sessionsTree/sessionsTreeProvider';
import type { BraidCommand } from '../braidCommand';

/** Where the tree's mode is kept, so a window reopens showing what it showed. */
const MODE_KEY = 'braid.sessions.allWorkspaces';

/** Puts the tree in the mode this workspace last used. */
export async function restoreTreeMode(tree: SessionsTreeProvider, memento: vscode.Memento): Promise<void> {
  await tree.showAllWorkspaces(memento.get<boolean>(MODE_KEY, false));
}

/**
 * Braid: Show All Workspaces / Show This Workspace — two commands rather than one toggle so the
 * view title shows the icon of what a click does ($(globe) or $(home)), swapped by a context key.
 */
export function workspaceToggleCommands(tree: SessionsTreeProvider, memento: vscode.Memento): BraidCommand[] {
  const show = (on: boolean) => async () => {
    await memento.update(MODE_KEY, on);
    await tree.showAllWorkspaces(on);
  };
  return [
    { id: 'braid.showAllWorkspaces', run: show(true) },
    { id: 'braid.showThisWorkspace', run: show(false) },
  ];
}
