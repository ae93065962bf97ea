import * as vscode from 'vscode';
import type { BraidCommand } from './command';

/** Registers every command in one place; each registration is disposed with the extension. */
export function registerCommands(context: vscode.ExtensionContext, commands: readonly BraidCommand[]): void {
  for (const command of commands) {
    context.subscriptions.push(vscode.commands.registerCommand(command.id, (...args: unknown[]) => command.run(...args)));
  }
}
