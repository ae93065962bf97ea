import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import { registerCommands } from './commands';
import { showLogCommand } from './commands/showLog';
import { channelLogger } from './log';

/** The "Braid" output channel, Show Log, and the logger over the channel that every other part writes to. */
export function registerLog(context: vscode.ExtensionContext): Logger {
  const channel = vscode.window.createOutputChannel('Braid', { log: true });
  context.subscriptions.push(channel);
  const logger = channelLogger(channel);
  registerCommands(context, logger, [showLogCommand(channel)]);
  return logger;
}
