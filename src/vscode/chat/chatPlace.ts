import * as vscode from 'vscode';
import type { BraidCommand } from '../braidCommand';
import { ChatViewProvider } from './chatViewProvider';

/** The view container in the Secondary Side Bar (beside the editor) that the Chat view can move to; empty, so hidden, until it does. */
const BESIDE_EDITOR = 'workbench.view.extension.braidBesideEditor';

/** The Explorer's Braid section, shown until the Chat view has been opened once. */
export const START_VIEW = 'braid.start';

/** The context key (and globalState key) saying the Chat view has been opened in this profile. */
const CHAT_OPENED = 'braid.chatOpened';

/** Braid: Move Chat Beside the Editor — the Chat view goes to the Secondary Side Bar, where VS Code users keep chat, and opens there. */
export function chatBesideEditorCommand(): BraidCommand {
  return {
    id: 'braid.chatBesideEditor',
    run: async () => {
      await vscode.commands.executeCommand('vscode.moveViews', { viewIds: [ChatViewProvider.viewId], destinationId: BESIDE_EDITOR });
      await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
    },
  };
}

/**
 * The first screen's pointer to Braid: a Braid section in the Explorer (its welcome text and
 * buttons open the chat, in the side bar or beside the editor) until the Chat view is first
 * opened, remembered for the profile.
 */
export function registerStartPointer(context: vscode.ExtensionContext): { chatOpened(): void } {
  const empty: vscode.TreeDataProvider<never> = { getChildren: () => [], getTreeItem: (item: never) => item };
  context.subscriptions.push(vscode.window.registerTreeDataProvider(START_VIEW, empty));
  const opened = context.globalState.get<boolean>(CHAT_OPENED, false);
  void vscode.commands.executeCommand('setContext', CHAT_OPENED, opened);
  let said = opened;
  return {
    chatOpened: () => {
      if (said) return;
      said = true;
      void context.globalState.update(CHAT_OPENED, true);
      void vscode.commands.executeCommand('setContext', CHAT_OPENED, true);
    },
  };
}
