import * as vscode from 'vscode';
import type { ChatHub } from '../chat/chatHub';
import type { MemoryDocuments } from '../chat/memoryDocument';
import type { BraidCommand } from '../braidCommand';

/** Braid: Show Session Memory (/memory) — opens the chat's session memory as a document; saving it keeps the edit. */
export function showSessionMemoryCommand(documents: MemoryDocuments): BraidCommand {
  return {
    id: 'braid.showSessionMemory',
    failure: 'Braid could not show the session memory',
    run: () => documents.open(),
  };
}

/** Braid: Update Session Memory (/remember) — the model writes the chat's session memory now, with progress; then it is shown. */
export function updateSessionMemoryCommand(chat: ChatHub, documents: MemoryDocuments): BraidCommand {
  return {
    id: 'braid.updateSessionMemory',
    failure: 'Braid could not update the session memory (it stays as it was)',
    run: async () => {
      const record = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Braid: updating the session memory…' }, () =>
        chat.current.updateMemory(),
      );
      await documents.open();
      void vscode.window.showInformationMessage(`Session memory updated: ${record.facts.length} ${record.facts.length === 1 ? 'fact' : 'facts'}.`);
    },
  };
}
