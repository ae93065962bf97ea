import { listSessionFolders } from '../format/layout';
import { readState } from '../format/sessionState';
import type { SessionStore } from '../store/sessionStore';
import { workspaceKey } from '../workspace/workspaceKey';
import type { SessionToPush } from './push';

/**
 * The sessions of `workspace` made on this machine, archived ones included: what `braid push
 * --all` and Push Sessions' "All sessions of this workspace" send. A pulled session is left out
 * (only the machine it was made on pushes it), and so is one whose state.json cannot be read
 * (`braid doctor` names it).
 */
export function ownSessions(store: SessionStore, workspace: string): SessionToPush[] {
  const found: SessionToPush[] = [];
  for (const f of listSessionFolders(store.layout, workspaceKey(workspace))) {
    try {
      const state = readState(store.layout.stateFile(f.dir));
      if (!state.shared) found.push({ dir: f.dir, state });
    } catch {
      // unreadable: not pushed
    }
  }
  return found;
}
