import * as vscode from 'vscode';
import type { SessionStore } from '../../core/store/sessionStore';
import { shownTitle } from '../../core/format/titles';
import type { BraidCommand } from '../braidCommand';
import type { CommandContext } from './commandContext';
import { sessionArg } from './sessionArg';

/** A command that acts on one session (tree row, the chat's session, or one picked). */
function onSession(id: string, ctx: CommandContext, action: (store: SessionStore, sessionId: string) => Promise<unknown>, archived = false): BraidCommand {
  return {
    id,
    run: async (arg?: unknown) => {
      const store = ctx.requireStore();
      const sessionId = await sessionArg(arg, ctx, archived);
      if (sessionId) await action(store, sessionId);
    },
  };
}

/** Archive, Restore, Delete (with Undo), Rename, Export, Copy Id, Continue Last Session, Rebuild Session Index. */
export function lifecycleCommands(ctx: CommandContext): BraidCommand[] {
  return [
    onSession('braid.archiveSession', ctx, (s, id) => s.archive(id)),
    onSession('braid.restoreSession', ctx, (s, id) => s.restore(id), true),
    onSession('braid.deleteSession', ctx, async (s, id) => {
      const title = shownTitle(s.get(id)) || id;
      if (ctx.chat.current.currentId === id) await ctx.chat.current.newSession();
      await s.delete(id);
      const undo = await vscode.window.showInformationMessage(`Deleted "${title}". It stays in the trash for 7 days.`, 'Undo');
      if (undo === 'Undo') await s.undelete(id);
    }),
    onSession('braid.renameSession', ctx, async (s, id) => {
      const title = await vscode.window.showInputBox({ prompt: 'New title', value: s.get(id).title });
      if (title?.trim()) await s.rename(id, title);
    }),
    onSession('braid.exportSession', ctx, async (s, id) => {
      const format = await vscode.window.showQuickPick(
        [
          { label: 'Markdown', value: 'md' as const },
          { label: 'JSONL (the raw log)', value: 'jsonl' as const },
        ],
        { placeHolder: 'Export as' },
      );
      if (!format) return;
      // A Markdown export with images is written as files: the .md, and the images in a folder beside it.
      if (format.value === 'md' && s.hasImages(id)) {
        const target = await vscode.window.showSaveDialog({ filters: { Markdown: ['md'] }, title: 'Export the session and its images' });
        if (!target) return;
        const images = s.exportWithImages(id, target.fsPath);
        await vscode.window.showTextDocument(target);
        void vscode.window.showInformationMessage(`Exported the session with ${images.length === 1 ? '1 image' : `${images.length} images`} beside it.`);
        return;
      }
      const doc = await vscode.workspace.openTextDocument({ content: s.export(id, format.value), language: format.value === 'md' ? 'markdown' : 'jsonl' });
      await vscode.window.showTextDocument(doc);
    }),
    onSession('braid.copySessionId', ctx, async (_s, id) => vscode.env.clipboard.writeText(id)),
    {
      id: 'braid.continueLastSession',
      run: async () => {
        const store = ctx.requireStore();
        const latest = ctx.workspaceDir ? store.latest(ctx.workspaceDir) : undefined;
        if (!latest) {
          void vscode.window.showInformationMessage('There is no session to continue in this workspace yet.');
          return;
        }
        await ctx.chat.current.openSession(latest.id);
        await ctx.chat.reveal();
      },
    },
    {
      id: 'braid.rebuildIndex',
      run: async () => {
        const store = ctx.requireStore();
        await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: 'Rebuilding the session index', cancellable: false },
          async (progress) => {
            let last = 0;
            await store.index.rebuildFromFolders((done, total) => {
              const pct = total ? (done / total) * 100 : 100;
              progress.report({ increment: pct - last, message: `${done} of ${total} sessions` });
              last = pct;
            });
          },
        );
      },
    },
  ];
}
