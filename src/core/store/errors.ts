import fs from 'node:fs';
import path from 'node:path';
import type { SharedOrigin } from '../format/sessionState';

/** A session the user asked for does not exist; the message says what to do. */
export class SessionNotFoundError extends Error {
  override readonly name = 'SessionNotFoundError';
}

/**
 * What to throw for `err`, met while working in the session folder `dir`: a file missing because
 * the whole folder went away meanwhile (another process deleted, restored or re-linked the session
 * just now) becomes a SessionNotFoundError saying so; any other error is returned as it is.
 */
export function goneMeanwhile(err: unknown, dir: string): unknown {
  return (err as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync(dir) ? folderGone(dir) : err;
}

/** The error for a session whose folder `dir` another process deleted or moved just now. */
export function folderGone(dir: string): SessionNotFoundError {
  return new SessionNotFoundError(`session ${path.basename(dir)} was deleted or moved by another process just now`);
}

/**
 * A session pulled from a git remote (state.json `shared`) is read-only on this machine: its log
 * is the pushing machine's, so no process here takes its writer lease to append, rewind or move
 * it. Forking it gives a session of this machine. The message says where it came from.
 */
export class SharedSessionError extends Error {
  override readonly name = 'SharedSessionError';
  constructor(readonly origin: SharedOrigin) {
    super(`This session was pulled from ${origin.remote} (${origin.author} on ${origin.machineName}); it is read-only here. Fork it to continue.`);
  }
}
