import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import type { BraidCommand } from '../braidCommand';
import { reported } from '../reported';

/** Registers every command in one place, each reporting its failures in one message; each registration is disposed with the extension. */
export function registerCommands(context: vscode.ExtensionContext, logger: Logger, commands: readonly BraidCommand[]): void {
  for (const command of commands) {
    context.subscriptions.push(
      vscode.commands.registerCommand(command.id, (...args: unknown[]) => reported(logger, command.id, () => command.run(...args), command.failure)),
    );
  }
}
