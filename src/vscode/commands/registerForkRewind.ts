import * as vscode from 'vscode';
import { registerCommands } from '.';
import { reported } from '../reported';
import type { CommandContext } from './commandContext';
import { editLastPromptCommand } from './chatCommands';
import {
  FORK_FAILURE,
  forkAtMessage,
  forkAtTurnCommand,
  forkAgentCommand,
  forkCommand,
  REWIND_FAILURE,
  rewindCommand,
  rewindToMessage,
  undoRewindCommand,
} from './forkRewindCommands';
import {
  finishWorktreeCommand,
  forkIntoWorktreeAtMessage,
  forkIntoWorktreeCommand,
  GIT_CONTENT_SCHEME,
  gitContentProvider,
  openWorktreeFolderCommand,
  recreateWorktreeCommand,
  worktreeDiffCommand,
  WORKTREE_FORK_FAILURE,
} from './worktreeCommands';

/**
 * Forks, rewinds and worktrees: from the palette, and from the actions on a message in the chat
 * (a side question kept as a fork is shown in the Sessions tree too).
 */
export function registerForkRewind(context: vscode.ExtensionContext, ctx: CommandContext): void {
  const { chat, logger } = ctx;
  chat.setSessionRevealer((id) => ctx.revealSession(id));
  chat.setMessageActionHandler((action, sessionId, messageId) =>
    action === 'fork'
      ? reported(logger, 'fork at a message', () => forkAtMessage(ctx, sessionId, messageId), FORK_FAILURE)
      : action === 'forkWorktree'
        ? reported(logger, 'fork into a worktree at a message', () => forkIntoWorktreeAtMessage(ctx, sessionId, messageId), WORKTREE_FORK_FAILURE)
        : // Edit & resend is a rewind that refills the input.
          reported(logger, `${action} at a message`, () => rewindToMessage(ctx, sessionId, messageId), REWIND_FAILURE),
  );
  registerCommands(context, logger, [
    forkCommand(ctx),
    forkAtTurnCommand(ctx),
    forkAgentCommand(ctx),
    forkIntoWorktreeCommand(ctx),
    finishWorktreeCommand(ctx),
    worktreeDiffCommand(ctx),
    openWorktreeFolderCommand(ctx),
    recreateWorktreeCommand(ctx),
    rewindCommand(ctx),
    undoRewindCommand(ctx),
    editLastPromptCommand(ctx),
  ]);
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(GIT_CONTENT_SCHEME, gitContentProvider));
}
