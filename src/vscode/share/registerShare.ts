import type * as vscode from 'vscode';
import { registerCommands } from '../commands';
import type { CommandContext } from '../commands/commandContext';
import { shareCommands } from '../commands/shareCommands';
import { PushReviewDocument } from './pushReview';
import type { ShareMemory } from './shareMemory';
import { showShareStatus } from './shareStatus';

/**
 * Sessions through git in VS Code: Push Sessions to Git Remote…, Pull Shared Sessions from Git
 * Remote… and Sync Sessions with Git Remote…, the dry run's details document, and the last push,
 * pull or sync in the Sessions view's description (the status bar's tooltip names them too,
 * through `memory`).
 */
export function registerShare(
  context: vscode.ExtensionContext,
  ctx: CommandContext,
  deps: { memory: ShareMemory; sessionsView: vscode.TreeView<unknown> },
): void {
  const review = new PushReviewDocument();
  context.subscriptions.push(review, showShareStatus(deps.sessionsView, deps.memory));
  registerCommands(context, ctx.logger, shareCommands(ctx, { memory: deps.memory, review, secrets: context.secrets }));
}
