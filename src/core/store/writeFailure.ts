// A log write that failed for good, as the session's writer tells it: the error a turn fails with,
// and the mark the session carries until its log is written whole again (docs/reference.md, Wire
// records: Writing a log).
import { errorMessage } from '../errors';
import { writeFailureKind, writeFailureSentence, type WriteFailure } from '../format/writeFailure';
import { SessionNotFoundError } from './errors';
import { LeaseLostError } from './writerLease';

/** A record that could not be appended to a session's log: the turn fails with this, naming the cause. */
export class LogWriteFailedError extends Error {
  override readonly name = 'LogWriteFailedError';
  constructor(
    readonly failure: WriteFailure,
    options: { cause: unknown },
  ) {
    super(writeFailureSentence(failure), options);
  }
}

/**
 * The mark for an append's error, or undefined when it is no failure of the disk: a lost lease
 * means another process writes the session now (nothing to mark here).
 */
export function writeFailureOf(err: unknown, now = Date.now()): WriteFailure | undefined {
  if (err instanceof LeaseLostError) return undefined;
  if (err instanceof LogWriteFailedError) return err.failure;
  const kind = err instanceof SessionNotFoundError ? 'folder-removed' : writeFailureKind(err);
  return { kind, message: errorMessage(err), at: now };
}

/** The note a turn that a failed write left open ends `interrupted` with. */
export function unsavedTurnNote(failure: WriteFailure): string {
  return `this turn's end could not be written (${failure.kind}: ${failure.message}); what was written before stays`;
}
