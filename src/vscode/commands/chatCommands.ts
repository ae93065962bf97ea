import * as vscode from 'vscode';
import type { ChatHub } from '../chat/chatHub';
import type { BraidCommand } from '../braidCommand';
import type { CommandContext } from './commandContext';
import { REWIND_FAILURE, rewindToMessage } from './forkRewindCommands';
import { isPromptRecord } from '../../core/wire/records';
import { historyPicks } from './promptPicks';

/** Braid: Edit Last Prompt — rewinds the chat's session to before its last prompt and puts it back in the input. */
export function editLastPromptCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.editLastPrompt',
    failure: REWIND_FAILURE,
    run: async () => {
      const store = ctx.requireStore();
      const id = ctx.chat.current.currentId;
      if (!id) {
        void vscode.window.showInformationMessage('Open a session in the Chat view first: Edit Last Prompt works on its last prompt.');
        return;
      }
      const last = store.newestPage(id, 40).messages.filter(isPromptRecord).pop();
      if (!last) {
        void vscode.window.showInformationMessage('This session has no prompt to edit yet.');
        return;
      }
      await rewindToMessage(ctx, id, last.id);
    },
  };
}

/** Braid: Side Question — asks about the chat's session without adding to it; the answer shows in an overlay. */
export function sideQuestionCommand(chat: ChatHub): BraidCommand {
  return {
    id: 'braid.sideQuestion',
    run: async (arg?: unknown) => {
      const question =
        typeof arg === 'string'
          ? arg
          : await vscode.window.showInputBox({
              prompt: 'Side question (answered beside the conversation, never added to it)',
              placeHolder: 'What does this function return?',
            });
      if (question?.trim()) await chat.sideQuestion(question.trim());
    },
  };
}

/** Braid: Compact Session — summarizes the older part of the chat's session now, with progress; Cancel stops it. */
export function compactSessionCommand(chat: ChatHub): BraidCommand {
  return {
    id: 'braid.compactSession',
    run: async (focus?: unknown) => {
      const done = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Braid: compacting the session…', cancellable: true },
        (_progress, token) => {
          token.onCancellationRequested(() => chat.current.cancel());
          return chat.current.compact(typeof focus === 'string' ? focus : undefined);
        },
      );
      if (!done) void vscode.window.showInformationMessage('Nothing to compact yet: the whole conversation fits in what is kept verbatim.');
    },
  };
}

/** Braid: Prompt History (/history) — pick an earlier prompt to put in the chat input. */
export function promptHistoryCommand(chat: ChatHub): BraidCommand {
  return {
    id: 'braid.promptHistory',
    run: async () => {
      const prompts = chat.current.promptHistory();
      if (prompts.length === 0) {
        void vscode.window.showInformationMessage('No earlier prompts in this workspace yet.');
        return;
      }
      const pick = await vscode.window.showQuickPick(historyPicks(prompts), { placeHolder: 'Earlier prompts, newest first', matchOnDetail: true });
      if (!pick) return;
      await chat.reveal();
      chat.prefill(pick.prompt);
    },
  };
}

/** Braid: Add Selection to Chat — the editor's selection, with its file and lines, as a chip in the Chat's composer. */
export function addSelectionCommand(chat: ChatHub): BraidCommand {
  return { id: 'braid.addSelectionToChat', run: () => chat.addSelection() };
}
