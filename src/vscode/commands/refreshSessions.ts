import type { SessionStore } from '../../core/store/sessionStore';
import type { SessionsTreeProvider } from '../sessions/sessionsTreeProvider';
import type { BraidCommand } from './command';

/** Braid: Refresh — re-reads the shown workspaces' session folders into the index and redraws the tree. */
export function refreshSessionsCommand(store: SessionStore | undefined, tree: SessionsTreeProvider, workspaceKey: string | undefined): BraidCommand {
  return {
    id: 'braid.refreshSessions',
    run: async () => {
      if (store && tree.allWorkspaces) await store.index.catchUpWithFolders();
      else if (store && workspaceKey) await store.index.catchUpWithFolders(workspaceKey);
      tree.refresh();
    },
  };
}
