import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import type { SessionStore } from '../../core/store/sessionStore';
import { shownTitle } from '../../core/format/titles';
import type { ChatHub } from '../chat/chatHub';
import type { BraidCommand } from './command';
import { sessionArg } from './sessionArg';

type Deps = { chat: ChatHub; store: SessionStore | undefined; workspaceKey: string | undefined; workspaceDir: string | undefined };

/** A command that acts on one session (tree row, the chat's session, or one picked). */
function onSession(id: string, deps: Deps, action: (store: SessionStore, sessionId: string) => Promise<unknown>, archived = false): BraidCommand {
  return {
    id,
    run: async (arg?: unknown) => {
      if (!deps.store) return;
      const sessionId = await sessionArg(arg, deps.chat, deps.store, deps.workspaceKey, archived);
      if (!sessionId) return;
      try {
        await action(deps.store, sessionId);
      } catch (err) {
        void vscode.window.showErrorMessage(`Braid: ${errorMessage(err)}`);
      }
    },
  };
}

/** Archive, Restore, Delete (with Undo), Rename, Export, Copy Id, Continue Last Session, Rebuild Session Index. */
export function lifecycleCommands(deps: Deps): BraidCommand[] {
  return [
    onSession('braid.archiveSession', deps, (s, id) => s.archive(id)),
    onSession('braid.restoreSession', deps, (s, id) => s.restore(id), true),
    onSession('braid.deleteSession', deps, async (s, id) => {
      const title = shownTitle(s.get(id)) || id;
      if (deps.chat.sessions.currentId === id) await deps.chat.sessions.newSession();
      await s.delete(id);
      const undo = await vscode.window.showInformationMessage(`Deleted "${title}". It stays in the trash for 7 days.`, 'Undo');
      if (undo === 'Undo') await s.undelete(id);
    }),
    onSession('braid.renameSession', deps, async (s, id) => {
      const title = await vscode.window.showInputBox({ prompt: 'New title', value: s.get(id).title });
      if (title?.trim()) await s.rename(id, title);
    }),
    onSession('braid.exportSession', deps, async (s, id) => {
      const format = await vscode.window.showQuickPick([{ label: 'Markdown', value: 'md' as const }, { label: 'JSONL (the raw log)', value: 'jsonl' as const }], { placeHolder: 'Export as' });
      if (!format) return;
      const doc = await vscode.workspace.openTextDocument({ content: s.export(id, format.value), language: format.value === 'md' ? 'markdown' : 'jsonl' });
      await vscode.window.showTextDocument(doc);
    }),
    onSession('braid.copySessionId', deps, async (_s, id) => vscode.env.clipboard.writeText(id)),
    {
      id: 'braid.continueLastSession',
      run: async () => {
        const latest = deps.store && deps.workspaceDir ? deps.store.latest(deps.workspaceDir) : undefined;
        if (!latest) {
          void vscode.window.showInformationMessage('There is no session to continue in this workspace yet.');
          return;
        }
        await deps.chat.sessions.openSession(latest.id);
        await deps.chat.reveal();
      },
    },
    {
      id: 'braid.rebuildIndex',
      run: async () => {
        if (!deps.store) return;
        const store = deps.store;
        await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Rebuilding the session index', cancellable: false }, async (progress) => {
          let last = 0;
          await store.index.rebuild((done, total) => {
            const pct = total ? (done / total) * 100 : 100;
            progress.report({ increment: pct - last, message: `${done} of ${total} sessions` });
            last = pct;
          });
        });
      },
    },
  ];
}
