import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import { registerCommands } from './commands';
import { showLogCommand } from './commands/showLog';

/** The core's Logger over VS Code's LogOutputChannel (levels, timestamps, "Braid" in Output). */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    trace: (m) => channel.trace(m),
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
  };
}

/** The "Braid" output channel, Show Log, and the logger over the channel that every other part writes to. */
export function registerLog(context: vscode.ExtensionContext): Logger {
  const channel = vscode.window.createOutputChannel('Braid', { log: true });
  context.subscriptions.push(channel);
  const logger = channelLogger(channel);
  registerCommands(context, logger, [showLogCommand(channel)]);
  return logger;
}
