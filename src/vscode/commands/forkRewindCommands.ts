import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import { forkSession, leftOutNote } from '../../core/store/fork';
import { previewRewind, rewindSession } from '../../core/store/rewind';
import type { SessionStore } from '../../core/store/sessionStore';
import { sessionLabel } from '../../core/format/titles';
import type { ChatHub } from '../chat/chatHub';
import type { BraidCommand } from './command';
import { rewindQuestion, rewoundNote, undoneNote } from './rewindNotes';
import { pickPrompt, sessionArg } from './sessionArg';

const OPEN_SOURCE = 'Open Source';

/** Braid: Fork Session — a whole copy, opened in the Chat view. */
export function forkCommand(chat: ChatHub, store: SessionStore | undefined, workspaceKey: string | undefined, reveal: (id: string) => void): BraidCommand {
  return {
    id: 'braid.forkSession',
    run: async (arg?: unknown) => {
      if (!store) return;
      const id = await sessionArg(arg, chat, store, workspaceKey);
      if (!id) return;
      await fork(chat, store, id, undefined, reveal);
    },
  };
}

/** Braid: Fork at Turn... — a copy up to the turn of a chosen prompt. */
export function forkAtTurnCommand(chat: ChatHub, store: SessionStore | undefined, workspaceKey: string | undefined, reveal: (id: string) => void): BraidCommand {
  return {
    id: 'braid.forkAtTurn',
    run: async (arg?: unknown) => {
      if (!store) return;
      const id = await sessionArg(arg, chat, store, workspaceKey);
      if (!id) return;
      const prompt = await pickPrompt(store, id, 'Fork keeping the conversation up to the end of this turn');
      if (prompt) await fork(chat, store, id, prompt.turn, reveal);
    },
  };
}

/**
 * Forks, opens the fork in the Chat view, shows it in the tree (revealed and selected) and says
 * so, with a way back to the source.
 */
async function fork(chat: ChatHub, store: SessionStore, id: string, turn: number | undefined, reveal: (id: string) => void): Promise<void> {
  try {
    const forked = await forkSession(store, id, turn === undefined ? {} : { turn });
    await chat.sessions.openSession(forked.id);
    await chat.reveal();
    reveal(forked.id);
    const source = sessionLabel(store.index.get(id) ?? {});
    const at = forked.forkedFrom?.turn ? ` at turn ${forked.forkedFrom.turn}` : '';
    const note = forked.leftOutTurn !== null ? ` (${leftOutNote(forked)})` : '';
    void vscode.window.showInformationMessage(`Forked "${source}"${at}${note}.`, OPEN_SOURCE).then((choice) => {
      if (choice === OPEN_SOURCE) void vscode.commands.executeCommand('braid.openSession', id);
    });
  } catch (err) {
    void vscode.window.showErrorMessage(`Braid could not fork the session: ${errorMessage(err)}`);
  }
}

/**
 * Braid: Rewind... — picks a prompt, shows what would change (files, commands that cannot be
 * undone), rewinds (with or without files) and puts the prompt back in the chat input.
 */
export function rewindCommand(chat: ChatHub, store: SessionStore | undefined, workspaceKey: string | undefined): BraidCommand {
  return {
    id: 'braid.rewind',
    run: async (arg?: unknown) => {
      if (!store) return;
      const id = await sessionArg(arg, chat, store, workspaceKey);
      if (!id) return;
      const prompt = await pickPrompt(store, id, 'Rewind to before this prompt (it comes back in the input to edit and resend)');
      if (prompt) await rewindToMessage(chat, store, id, prompt.id);
    },
  };
}

/**
 * Rewinds `sessionId` to before the prompt `messageId`: a modal previews the files and commands,
 * the user chooses to restore files or not, and the prompt comes back in the chat input.
 */
export async function rewindToMessage(chat: ChatHub, store: SessionStore, id: string, messageId: string): Promise<void> {
  try {
    const preview = previewRewind(store, id, messageId);
    const lines = preview.files.map((f) => `${f.action} ${f.path} (+${f.added} -${f.removed})${f.changedOutside ? ' — changed outside Braid, left alone' : ''}`);
    if (preview.commands.length) lines.push('', 'Commands that ran and cannot be undone:', ...preview.commands.map((c) => `  ${c}`));
    if (preview.commandsMayHaveRun.length) lines.push('', 'Commands that may have run (Braid stopped before their result came back):', ...preview.commandsMayHaveRun.map((c) => `  ${c}`));
    if (preview.refused.length) lines.push('', 'Left alone (outside this session\'s workspace folders, or not a regular file):', ...preview.refused.map((r) => `  ${r}`));
    const choices = preview.files.length ? ['Rewind and Restore Files', 'Rewind Conversation Only'] : ['Rewind'];
    const choice = await vscode.window.showWarningMessage(rewindQuestion(preview), { modal: true, detail: lines.join('\n') || 'No files were changed in these turns.' }, ...choices);
    if (!choice) return;
    const files = choice === 'Rewind and Restore Files';
    const result = chat.sessions.currentId === id
      ? await chat.sessions.rewind(messageId, files)
      : await rewindSession(store, id, messageId, { files });
    if (chat.sessions.currentId !== id) await chat.sessions.openSession(id);
    chat.prefill(result.text);
    await chat.reveal();
    // Undo is offered twice, as in an editor: on the notification and in the chat, until the session goes on.
    const note = rewoundNote(result, files);
    chat.sessions.noteRewind(id, note, result.text);
    void vscode.window.showInformationMessage(note, 'Undo').then((pick) => pick && vscode.commands.executeCommand('braid.undoRewind', id));
  } catch (err) {
    void vscode.window.showErrorMessage(`Braid could not rewind: ${errorMessage(err)}`);
  }
}

/**
 * Braid: Undo Rewind — undoes the last rewind of the chat's session (or of the session given, as
 * the rewind notification's Undo does) when nothing happened since; the prompt that rewind put
 * back in the input leaves it again.
 */
export function undoRewindCommand(chat: ChatHub, store: SessionStore | undefined): BraidCommand {
  return {
    id: 'braid.undoRewind',
    run: async (arg?: unknown) => {
      const id = typeof arg === 'string' ? arg : chat.sessions.currentId;
      if (!store || !id) {
        void vscode.window.showInformationMessage('Open a session in the Chat view first: Undo Rewind works on its last rewind.');
        return;
      }
      try {
        const result = await chat.sessions.undoRewind(id);
        if (result.prompt !== undefined) chat.prefill('', result.prompt);
        void vscode.window.showInformationMessage(undoneNote(result));
      } catch (err) {
        void vscode.window.showErrorMessage(`Braid could not undo the rewind: ${errorMessage(err)}`);
      }
    },
  };
}

/** Forks `sessionId` keeping the conversation up to the end of the turn of `messageId`. */
export async function forkAtMessage(chat: ChatHub, store: SessionStore, id: string, messageId: string, reveal: (id: string) => void): Promise<void> {
  const message = store.history(id).messages.find((m) => m.id === messageId);
  if (!message) {
    void vscode.window.showErrorMessage('Braid could not find that message in the session any more.');
    return;
  }
  await fork(chat, store, id, message.turn, reveal);
}
