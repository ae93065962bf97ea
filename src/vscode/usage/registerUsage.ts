import type * as vscode from 'vscode';
import { registerCommands } from '../commands';
import type { CommandContext } from '../commands/commandContext';
import { showUsageCommand } from '../commands/showUsage';
import { UsagePanel } from './usagePanel';

/** The Usage view, made the first time Show Usage (or /usage) asks for it. */
export function registerUsage(context: vscode.ExtensionContext, ctx: CommandContext): void {
  registerCommands(context, ctx.logger, [
    showUsageCommand(ctx, (store) => {
      const usage = new UsagePanel(context.extensionUri, store, ctx.workspaceDir, ctx.logger);
      context.subscriptions.push(usage);
      return usage;
    }),
  ]);
}
