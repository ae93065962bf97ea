import type { SessionsTreeProvider } from '../sessionsTree/sessionsTreeProvider';
import type { BraidCommand } from '../braidCommand';
import type { CommandContext } from './commandContext';

/** Braid: Refresh — re-reads the shown workspaces' session folders into the index and redraws the tree. */
export function refreshSessionsCommand(ctx: CommandContext, tree: SessionsTreeProvider): BraidCommand {
  return {
    id: 'braid.refreshSessions',
    run: async () => {
      const store = ctx.requireStore();
      if (tree.allWorkspaces) await store.index.catchUpWithFolders();
      else if (ctx.workspaceKey) await store.index.catchUpWithFolders(ctx.workspaceKey);
      tree.refresh();
    },
  };
}
