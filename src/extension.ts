import * as vscode from 'vscode';
import { channelLogger } from './vscode/log';
import { ChatViewProvider } from './vscode/chat/chatViewProvider';
import { registerCommands } from './vscode/commands';
import { showLogCommand } from './vscode/commands/showLog';
import { SessionsTreeProvider } from './vscode/sessions/sessionsTreeProvider';

/** Wires Braid's pieces together; everything created here is disposed with the extension. */
export function activate(context: vscode.ExtensionContext): void {
  const channel = vscode.window.createOutputChannel('Braid', { log: true });
  context.subscriptions.push(channel);
  const logger = channelLogger(channel);

  const sessions = new SessionsTreeProvider();
  context.subscriptions.push(sessions, vscode.window.createTreeView('braid.sessions', { treeDataProvider: sessions, showCollapseAll: true }));

  const chat = new ChatViewProvider(context.extensionUri, logger);
  context.subscriptions.push(chat, vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chat));

  registerCommands(context, [showLogCommand(channel)]);
  logger.info(`Braid ${context.extension.packageJSON.version} activated (storage: ${context.globalStorageUri.fsPath})`);
}

export function deactivate(): void {}
