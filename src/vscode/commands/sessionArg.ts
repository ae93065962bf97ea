import * as vscode from 'vscode';
import type { SessionStore } from '../../core/store/sessionStore';
import { promptText } from '../../core/format/messageText';
import { sessionLabel } from '../../core/format/titles';
import type { CommandContext } from './commandContext';
import { isPromptRecord } from '../../core/wire/records';
import { turnPicks } from './promptPicks';

/**
 * The session a command acts on: the tree row it was run on, else the session in the Chat view,
 * else one the user picks. With `archived` (Restore) only archived sessions qualify.
 */
export async function sessionArg(arg: unknown, ctx: CommandContext, archived = false): Promise<string | undefined> {
  const fromTree = typeof arg === 'string' ? arg : (arg as { id?: unknown } | undefined)?.id;
  if (typeof fromTree === 'string') return fromTree;
  const store = ctx.requireStore();
  const current = ctx.chat.current.currentId;
  if (current && (!archived || store.index.get(current)?.archived)) return current;
  const rows = store.index.list({ workspaceKey: ctx.workspaceKey, archived, limit: 100 });
  if (archived && rows.length === 0) {
    void vscode.window.showInformationMessage('There are no archived sessions in this workspace.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    rows.map((r) => ({ label: sessionLabel(r), description: `${r.turnCount} turns`, id: r.id })),
    { placeHolder: 'Which session?' },
  );
  return pick?.id;
}

/** The user's prompts of a session, newest first, to pick one (for fork at turn and rewind). */
export async function pickPrompt(store: SessionStore, sessionId: string, placeHolder: string): Promise<{ id: string; turn: number; text: string } | undefined> {
  const prompts = store
    .history(sessionId)
    .messages.filter(isPromptRecord)
    .map((m) => ({ id: m.id, turn: m.turn, text: promptText(m.message) }));
  if (prompts.length === 0) {
    void vscode.window.showInformationMessage('This session has no prompts yet.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(turnPicks(prompts), { placeHolder });
  return pick?.prompt;
}
