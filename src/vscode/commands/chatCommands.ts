import * as vscode from 'vscode';
import type { SessionStore } from '../../core/store/sessionStore';
import type { ChatViewProvider } from '../chat/chatViewProvider';
import type { BraidCommand } from './command';
import { rewindToMessage } from './forkRewindCommands';

/** Braid: Edit Last Prompt — rewinds the chat's session to before its last prompt and puts it back in the input. */
export function editLastPromptCommand(chat: ChatViewProvider, store: SessionStore | undefined): BraidCommand {
  return {
    id: 'braid.editLastPrompt',
    run: async () => {
      const id = chat.sessions.currentId;
      if (!store || !id) {
        void vscode.window.showInformationMessage('Open a session in the Chat view first: Edit Last Prompt works on its last prompt.');
        return;
      }
      const last = store.newestPage(id, 40).messages.filter((m) => m.message.role === 'user').pop();
      if (!last) {
        void vscode.window.showInformationMessage('This session has no prompt to edit yet.');
        return;
      }
      await rewindToMessage(chat, store, id, last.id);
    },
  };
}

/** Braid: Side Question — asks about the chat's session without adding to it; the answer shows in an overlay. */
export function sideQuestionCommand(chat: ChatViewProvider): BraidCommand {
  return {
    id: 'braid.sideQuestion',
    run: async (arg?: unknown) => {
      const question = typeof arg === 'string' ? arg : await vscode.window.showInputBox({ prompt: 'Side question (answered beside the conversation, never added to it)', placeHolder: 'What does this function return?' });
      if (question?.trim()) await chat.sideQuestion(question.trim());
    },
  };
}
