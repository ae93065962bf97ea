import fs from 'node:fs';
import path from 'node:path';

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
