import * as vscode from 'vscode';
import { isSessionId } from '../../core/ids';
import type { SessionStore } from '../../core/store/sessionStore';
import { sessionLabel } from '../../core/format/titles';
import { turnResults } from '../../core/index/turnSnippet';
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
 * Braid: Open Session... — from the tree (with an id) or a QuickPick searching everything the
 * sessions' turns said, each result with its first matching turn and a snippet; `{ query }` (the chat's `/sessions <query>`) opens the QuickPick with that search typed in.
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
  pick.placeholder = 'Search everything said in sessions (prompts, answers, tool output), or paste a ses_ id';
  pick.matchOnDescription = true;
  const show = (text: string) => {
    // The index already matched; alwaysShow stops the QuickPick from filtering again by label,
    // which would hide sessions that match only in a turn's text.
    if (!text.trim()) {
      const rows = store.index.list({ workspaceKey, limit: 50 });
      pick.items = rows.map((r) => ({ id: r.id, label: sessionLabel(r), description: `${r.turnCount} turns`, detail: r.firstPrompt, alwaysShow: true }));
      return;
    }
    pick.items = store.index.searchTurns(text, { workspaceKey, limit: 50 }).map(({ row, turns }) => {
      const [first] = turnResults(store.layout, row, turns.slice(0, 1), text);
      const where = !first ? '' : first.turn === 0 ? 'title' : `turn ${first.turn}${turns.length > 1 ? ` (+${turns.length - 1} more)` : ''}`;
      return {
        id: row.id,
        label: sessionLabel(row),
        description: `${row.turnCount} turns · ${where}`,
        detail: first?.snippet ?? row.firstPrompt,
        alwaysShow: true,
      };
    });
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
