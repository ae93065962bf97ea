import * as vscode from 'vscode';
import { isSessionId } from '../../core/ids';
import type { SessionStore } from '../../core/store/sessionStore';
import { sessionLabel } from '../../core/format/titles';
import type { ChatHub } from '../chat/chatHub';
import type { BraidCommand } from '../braidCommand';
import type { CommandContext } from './commandContext';
import { offerRunLocation } from './worktreeCommands';

/** Braid: New Session — the Chat view starts an empty session (created on the first prompt). */
export function newSessionCommand(chat: ChatHub): BraidCommand {
  return {
    id: 'braid.newSession',
    run: async () => {
      await chat.current.newSession();
      await chat.reveal();
    },
  };
}

/**
 * Braid: Open Session... — from the tree (with an id) or a QuickPick searching titles and
 * prompts; `{ query }` (the chat's `/sessions <query>`) opens the QuickPick with that search typed in.
 */
export function openSessionCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.openSession',
    failure: 'Braid could not open the session',
    run: async (arg?: unknown) => {
      const store = ctx.requireStore();
      const given = typeof arg === 'object' && arg !== null ? (arg as { id?: unknown; query?: unknown }) : {};
      let id = typeof arg === 'string' ? arg : typeof given.id === 'string' ? given.id : undefined;
      if (!id) id = await pickSession(store, ctx.workspaceKey, typeof given.query === 'string' ? given.query : '');
      if (!id) return;
      await ctx.chat.current.openSession(id);
      await ctx.chat.reveal();
      void offerRunLocation(ctx, id);
    },
  };
}

async function pickSession(store: SessionStore, workspaceKey: string | undefined, query: string): Promise<string | undefined> {
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
  pick.placeholder = 'Search sessions by title or prompt, or paste a ses_ id';
  pick.matchOnDescription = true;
  const show = (text: string) => {
    const rows = text.trim() ? store.index.search(text, { workspaceKey, limit: 50 }) : store.index.list({ workspaceKey, limit: 50 });
    // The index already matched titles and prompts; alwaysShow stops the QuickPick from filtering
    // again by label, which would hide sessions that match only in a prompt.
    pick.items = rows.map((r) => ({ id: r.id, label: sessionLabel(r), description: `${r.turnCount} turns`, detail: r.firstPrompt, alwaysShow: true }));
  };
  pick.value = query;
  show(query);
  pick.onDidChangeValue(show);
  return new Promise((resolve) => {
    pick.onDidAccept(() => {
      const typed = pick.value.trim();
      resolve(isSessionId(typed) ? typed : pick.selectedItems[0]?.id);
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}
