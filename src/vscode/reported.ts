// How a failure of a command or of the chat reaches the user and the log: below both, so the chat
// and the commands import it alike.
import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import { errorMessage } from '../core/errors';

/** A failure whose message is said to the user as it is: what happened and what to do, in one sentence. */
export class UserFacingError extends Error {
  override readonly name = 'UserFacingError';
}

/**
 * The one place a failure of a command or of the chat is reported: the log gets it (with its
 * stack when it was not meant for the user), the user one error message.
 */
export function reportFailure(logger: Logger, what: string, err: unknown, failure = 'Braid'): void {
  const message = errorMessage(err);
  if (err instanceof UserFacingError) {
    logger.warn(`${what}: ${message}`);
    void vscode.window.showErrorMessage(message);
    return;
  }
  logger.error(`${what} failed: ${err instanceof Error ? (err.stack ?? message) : message}`);
  void vscode.window.showErrorMessage(`${failure}: ${message}`);
}

/** Runs `work`, reporting its failure (see reportFailure) instead of throwing it. */
export async function reported(logger: Logger, what: string, work: () => unknown, failure?: string): Promise<void> {
  try {
    await work();
  } catch (err) {
    reportFailure(logger, what, err, failure);
  }
}
