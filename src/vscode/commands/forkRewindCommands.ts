import * as vscode from 'vscode';
import { forkSession, leftOutNote } from '../../core/store/fork';
import { forkAgent } from '../../core/store/agentFork';
import { previewRewind, rewindSession } from '../../core/store/rewind';
import { sessionLabel } from '../../core/format/titles';
import type { BraidCommand } from '../braidCommand';
import { UserFacingError } from '../reported';
import type { CommandContext } from './commandContext';
import { settleUndoToast, showUndoToast } from '../undoToast';
import { importedTurnsNote, pulledTurnsNote, rewindQuestion, rewoundNote, undoneNote } from '../rewindNotes';
import { pickPrompt, sessionArg } from './sessionArg';

const OPEN_SOURCE = 'Open Source';

/** How the messages of failed forks and rewinds begin. */
export const FORK_FAILURE = 'Braid could not fork the session';
export const REWIND_FAILURE = 'Braid could not rewind';

/** Braid: Fork Session — a whole copy, opened in the Chat view. */
export function forkCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.forkSession',
    failure: FORK_FAILURE,
    run: async (arg?: unknown) => {
      const id = await sessionArg(arg, ctx);
      if (id) await fork(ctx, id, undefined);
    },
  };
}

/** Braid: Fork at Turn... — a copy up to the turn of a chosen prompt. */
export function forkAtTurnCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.forkAtTurn',
    failure: FORK_FAILURE,
    run: async (arg?: unknown) => {
      const id = await sessionArg(arg, ctx);
      if (!id) return;
      const prompt = await pickPrompt(ctx.requireStore(), id, 'Fork keeping the conversation up to the end of this turn');
      if (prompt) await fork(ctx, id, prompt.turn);
    },
  };
}

/** Braid: Fork This Agent — a subagent's conversation (the Sessions tree's subagent row) as a session of its own. */
export function forkAgentCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.forkAgent',
    failure: FORK_FAILURE,
    run: async (arg?: unknown) => {
      const node = arg as { kind?: unknown; sessionId?: unknown; agent?: { id?: unknown } } | undefined;
      if (node?.kind !== 'subagent' || typeof node.sessionId !== 'string' || typeof node.agent?.id !== 'string')
        throw new UserFacingError('Fork This Agent works on a subagent of the Sessions view: expand a session and right-click one of its subagents.');
      const store = ctx.requireStore();
      const forked = await forkAgent(store, node.sessionId, node.agent.id);
      await ctx.chat.current.openSession(forked.id);
      await ctx.chat.reveal();
      ctx.revealSession(forked.id);
      announceFork(node.sessionId, `Forked the subagent ${node.agent.id} of "${sessionLabel(store.index.get(node.sessionId) ?? {})}".`);
    },
  };
}

/** Says a fork was made, with a way back to its source. */
function announceFork(sourceId: string, text: string): void {
  void vscode.window.showInformationMessage(text, OPEN_SOURCE).then((choice) => {
    if (choice === OPEN_SOURCE) void vscode.commands.executeCommand('braid.openSession', sourceId);
  });
}

/**
 * Forks, opens the fork in the Chat view, shows it in the tree (revealed and selected) and says
 * so, with a way back to the source.
 */
async function fork(ctx: CommandContext, id: string, turn: number | undefined): Promise<void> {
  const store = ctx.requireStore();
  const forked = await forkSession(store, id, turn === undefined ? {} : { turn });
  await ctx.chat.current.openSession(forked.id);
  await ctx.chat.reveal();
  ctx.revealSession(forked.id);
  const source = sessionLabel(store.index.get(id) ?? {});
  const at = forked.forkedFrom?.turn ? ` at turn ${forked.forkedFrom.turn}` : '';
  const note = forked.leftOutTurn !== null ? ` (${leftOutNote(forked)})` : '';
  announceFork(id, `Forked "${source}"${at}${note}.`);
}

/**
 * Braid: Rewind... — picks a prompt, shows what would change (files, commands that cannot be
 * undone), rewinds (with or without files) and puts the prompt back in the chat input.
 */
export function rewindCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.rewind',
    failure: REWIND_FAILURE,
    run: async (arg?: unknown) => {
      const id = await sessionArg(arg, ctx);
      if (!id) return;
      const prompt = await pickPrompt(ctx.requireStore(), id, 'Rewind to before this prompt (it comes back in the input to edit and resend)');
      if (prompt) await rewindToMessage(ctx, id, prompt.id);
    },
  };
}

/**
 * Rewinds `sessionId` to before the prompt `messageId`: a modal previews the files and commands,
 * the user chooses to restore files or not, and the prompt comes back in the chat input.
 */
export async function rewindToMessage(ctx: CommandContext, id: string, messageId: string): Promise<void> {
  const { chat } = ctx;
  const store = ctx.requireStore();
  const preview = previewRewind(store, id, messageId);
  const lines = preview.files.map((f) => `${f.action} ${f.path} (+${f.added} -${f.removed})${f.changedOutside ? ' — changed outside Braid, left alone' : ''}`);
  if (preview.commands.length) lines.push('', 'Commands that ran and cannot be undone:', ...preview.commands.map((c) => `  ${c}`));
  if (preview.commandsMayHaveRun.length)
    lines.push('', 'Commands that may have run (Braid stopped before their result came back):', ...preview.commandsMayHaveRun.map((c) => `  ${c}`));
  if (preview.mcpCalls.length) lines.push('', "MCP calls (may have changed things outside Braid's checkpoints):", ...preview.mcpCalls.map((c) => `  ${c}`));
  if (preview.refused.length)
    lines.push(
      '',
      "Left alone (outside this session's workspace folders, not a regular file, or its checkpoint removed):",
      ...preview.refused.map((r) => `  ${r}`),
    );
  for (const note of [importedTurnsNote(preview), pulledTurnsNote(preview)]) if (note) lines.push('', note);
  const choices = preview.files.length ? ['Rewind and Restore Files', 'Rewind Conversation Only'] : ['Rewind'];
  const choice = await vscode.window.showWarningMessage(
    rewindQuestion(preview),
    { modal: true, detail: lines.join('\n') || 'No files were changed in these turns.' },
    ...choices,
  );
  if (!choice) return;
  const files = choice === 'Rewind and Restore Files';
  const result = chat.current.currentId === id ? await chat.current.rewind(messageId, files) : await rewindSession(store, id, messageId, { files });
  if (chat.current.currentId !== id) await chat.current.openSession(id);
  chat.prefill(result.text);
  await chat.reveal();
  // Undo is offered twice, as in an editor: on the notification and in the chat, until the session goes on.
  const note = rewoundNote(result, files);
  chat.current.noteRewind(id, note, result.text);
  showUndoToast(rewindToast(id), note, () => vscode.commands.executeCommand('braid.undoRewind', id));
}

/** What the notification of a session's rewind undoes. */
const rewindToast = (sessionId: string) => `rewind:${sessionId}`;

/**
 * Braid: Undo Rewind — undoes the last rewind of the chat's session (or of the session given, as
 * the rewind notification's Undo does) when nothing happened since; the prompt that rewind put
 * back in the input leaves it again.
 */
export function undoRewindCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.undoRewind',
    failure: 'Braid could not undo the rewind',
    run: async (arg?: unknown) => {
      ctx.requireStore();
      const id = typeof arg === 'string' ? arg : ctx.chat.current.currentId;
      if (!id) {
        void vscode.window.showInformationMessage('Open a session in the Chat view first: Undo Rewind works on its last rewind.');
        return;
      }
      const result = await ctx.chat.current.undoRewind(id);
      if (result.prompt !== undefined) ctx.chat.prefill('', result.prompt);
      await settleUndoToast(rewindToast(id)); // undone from the chat: the rewind's notification goes
      void vscode.window.showInformationMessage(undoneNote(result));
    },
  };
}

/** Forks `sessionId` keeping the conversation up to the end of the turn of `messageId`. */
export async function forkAtMessage(ctx: CommandContext, id: string, messageId: string): Promise<void> {
  await fork(ctx, id, turnOfMessage(ctx, id, messageId));
}

/** The turn of a message of the session (a prompt's actions name it by id). */
export function turnOfMessage(ctx: CommandContext, id: string, messageId: string): number {
  const message = ctx
    .requireStore()
    .history(id)
    .messages.find((m) => m.id === messageId);
  if (!message) throw new UserFacingError('Braid could not find that message in the session any more.');
  return message.turn;
}
