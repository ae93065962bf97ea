import * as vscode from 'vscode';
import { counted } from '../../core/counted';
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import { folderIdentity, relinkCandidates, relinkSessions } from '../../core/store/relink';
import type { SessionStore } from '../../core/store/sessionStore';

const RELINK = 'Re-link';

/**
 * When a workspace opens with no sessions of its own and the store holds sessions of a folder
 * that was moved or renamed to it (docs/architecture.md, Re-linking a moved folder), offers
 * "Re-link N sessions from <old path>"; git is asked for the repository only in a trusted workspace.
 */
export async function offerRelink(store: SessionStore, workspaceDir: string, logger: Logger): Promise<void> {
  try {
    const identity = vscode.workspace.isTrusted ? await folderIdentity(workspaceDir) : undefined;
    for (const candidate of relinkCandidates(store, workspaceDir, identity)) {
      const sessions = counted(candidate.sessionIds.length, 'session');
      const choice = await vscode.window.showInformationMessage(
        `Re-link ${sessions} from ${candidate.fromDir}?`,
        {
          detail: `This folder has no sessions; those were recorded under ${candidate.fromDir}, which ${candidate.reason === 'same folder' ? 'is this folder under another path' : `is gone (${candidate.reason} as this folder)`}.`,
        },
        RELINK,
      );
      if (choice !== RELINK) continue;
      const result = await relinkSessions(store, candidate.fromDir, workspaceDir, candidate.fromKey);
      void vscode.window.showInformationMessage(`Re-linked ${counted(result.moved.length, 'session')} from ${candidate.fromDir}.`);
      return;
    }
  } catch (err) {
    logger.warn(`re-linking sessions failed: ${errorMessage(err)}`);
    void vscode.window.showErrorMessage(`Braid could not re-link the sessions: ${errorMessage(err)}`);
  }
}
