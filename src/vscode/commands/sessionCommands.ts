import * as vscode from 'vscode';
import { isSessionId } from '../../core/ids';
import type { SessionStore } from '../../core/store/sessionStore';
import { sessionLabel } from '../../core/format/titles';
import { turnResults } from '../../core/index/turnSnippet';
import type { ChatHub } from '../chat/chatHub';
import type { BraidCommand } from '../braidCommand';
import type { CommandContext } from './commandContext';
import { offerRunLocation } from './worktreeCommands';
import type { TurnHit } from '../../core/index/turnSearch';
import { turnTarget, type TurnTarget } from '../chat/turnReveal';
import { OPEN_SESSION_COMMAND } from '../commandIds';
import { UserFacingError } from '../reported';
import { openSessionArg } from './openSessionArg';
import { matchingTurns, resultPicks, shownTurns, turnsAndBranch, type SessionPick } from './sessionPicks';

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
 * sessions' turns said, each result with its first matching turn and a snippet, and lines for a
 * few more of its matching turns; a result opens the session at its turn, the searched words
 * marked. `{ query }` (the chat's `/sessions <query>`) opens the QuickPick with that search typed
 * in; `{ id, turn }` (a blamed line) opens the session at that turn, nothing marked.
 */
export function openSessionCommand(ctx: CommandContext): BraidCommand {
  return {
    id: OPEN_SESSION_COMMAND,
    failure: 'Braid could not open the session',
    run: async (raw?: unknown) => {
      const store = ctx.requireStore();
      const arg = openSessionArg(raw);
      if ('problem' in arg) throw new UserFacingError(`Braid could not open the session: ${arg.problem}.`);
      const picked = arg.id ? { id: arg.id, turn: arg.turn } : await pickSession(store, ctx.workspaceKey, arg.query ?? '');
      if (!picked) return;
      await ctx.chat.current.openSession(picked.id, revealAt(store, picked));
      await ctx.chat.reveal();
      void offerRunLocation(ctx, picked.id);
    },
  };
}

/** What the QuickPick gave (a session, and the matching turn picked with the search that found it), or a session and a turn asked for. */
type Picked = { id: string; turn?: number; hit?: undefined } | { id: string; hit: TurnHit; query: string };

/** Where the session opens: the turn picked or asked for (read from the session's turn map), else where the session was. */
function revealAt(store: SessionStore, picked: Picked): TurnTarget | undefined {
  if (!picked.hit && !picked.turn) return undefined;
  const dir = store.locate(picked.id);
  if (picked.hit) return turnTarget(store.layout.agentLog(dir), picked.hit, picked.query);
  const span = store.summaryAt(dir).fold.turns.find((t) => t.turn === picked.turn);
  return span && turnTarget(store.layout.agentLog(dir), span);
}

/** How long the QuickPick waits after a keystroke before it searches: a search reads snippets from the logs. */
const SEARCH_PAUSE_MS = 120;

function pickSession(store: SessionStore, workspaceKey: string | undefined, query: string): Promise<Picked | undefined> {
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & SessionPick>();
  pick.placeholder = 'Search everything said in sessions (prompts, answers, tool output), or paste a ses_ id';
  pick.matchOnDescription = true;
  // The index already matched; alwaysShow stops the QuickPick from filtering again by label,
  // which would hide sessions that match only in a turn's text.
  let shown = query;
  const show = (text: string) => {
    shown = text;
    pick.items = searchPicks(store, workspaceKey, text).map((p) => ({ ...p, alwaysShow: true }));
    pick.busy = false;
  };
  // Typing searches once the keys pause, not at every key.
  let pending: NodeJS.Timeout | undefined;
  const later = (text: string) => {
    clearTimeout(pending);
    pick.busy = true;
    pending = setTimeout(() => show(text), SEARCH_PAUSE_MS);
  };
  pick.value = query;
  show(query);
  pick.onDidChangeValue(later);
  return new Promise((resolve) => {
    pick.onDidAccept(() => {
      const typed = pick.value.trim();
      // Enter before the search ran: the first line of the search for what was typed.
      const stale = pick.value !== shown;
      if (stale) {
        clearTimeout(pending);
        show(pick.value);
      }
      const item = stale ? pick.items[0] : pick.selectedItems[0];
      if (isSessionId(typed)) resolve({ id: typed });
      else if (item) resolve(item.hit ? { id: item.id, hit: item.hit, query: pick.value } : { id: item.id });
      pick.hide();
    });
    pick.onDidHide(() => {
      clearTimeout(pending);
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}

/** The QuickPick's lines for `text`: the recent sessions without one, else the matching sessions and turns. */
function searchPicks(store: SessionStore, workspaceKey: string | undefined, text: string): SessionPick[] {
  if (!text.trim()) {
    const rows = store.index.list({ workspaceKey, limit: 50 });
    return rows.map((r) => ({ id: r.id, label: sessionLabel(r), description: turnsAndBranch(r), detail: r.firstPrompt }));
  }
  return store.index.searchTurns(text, { workspaceKey, limit: 50 }).flatMap(({ row, turns }, i) => {
    const matching = matchingTurns(turns);
    return resultPicks(row, matching.length, turnResults(store.layout, row, matching.slice(0, shownTurns(i)), text));
  });
}
