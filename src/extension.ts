import * as vscode from 'vscode';
import { registerBlame } from './vscode/blame/registerBlame';
import { registerChat } from './vscode/chat/registerChat';
import { commandContext } from './vscode/commands/commandContext';
import { registerForkRewind } from './vscode/commands/registerForkRewind';
import { registerLog } from './vscode/registerLog';
import { registerModel } from './vscode/model/registerModel';
import { registerSessionCommands, registerSessionsTree } from './vscode/sessionsTree/registerSessionsTree';
import { registerSetup } from './vscode/setup/registerSetup';
import { registerShare } from './vscode/share/registerShare';
import { ShareMemory } from './vscode/share/shareMemory';
import { openStore, registerStorage } from './vscode/storage/registerStorage';
import { registerUsage } from './vscode/usage/registerUsage';

/**
 * Registers Braid's features, one call each; everything each one creates is disposed through
 * `context.subscriptions`.
 */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const logger = registerLog(context);
  const workspaceDir = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const store = await openStore(context, logger, workspaceDir);
  const tree = await registerSessionsTree(context, { store, workspaceDir, logger });
  const shares = new ShareMemory(context.workspaceState);
  const chat = registerChat(context, { store, logger, statusNotes: shares });
  const ctx = commandContext({ chat, logger, store, workspaceDir, revealSession: tree.revealSession });
  registerSessionCommands(context, ctx, tree);
  registerForkRewind(context, ctx);
  registerSetup(context, ctx);
  registerModel(context, logger);
  registerUsage(context, ctx);
  registerBlame(context, { store, logger });
  registerShare(context, ctx, { memory: shares, sessionsView: tree.view });
  logger.info(`Braid ${context.extension.packageJSON.version} activated (storage: ${context.globalStorageUri.fsPath})`);
  registerStorage(context, ctx, store);
}

export function deactivate(): void {}
