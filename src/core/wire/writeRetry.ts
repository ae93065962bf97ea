// The retry of a log write that failed for a moment (docs/reference.md, Wire records: Writing a log).

/** Error codes that pass: the write is tried again after a wait. Any other code lasts. */
const TRANSIENT = new Set(['EAGAIN', 'EWOULDBLOCK', 'EINTR', 'EBUSY']);

/** How many times one append is tried in all before its error counts as lasting. */
export const LOG_WRITE_ATTEMPTS = 5;

/** The first wait between attempts; each next wait is twice the last (10, 20, 40, 80 ms: 150 ms in all). */
export const LOG_RETRY_FIRST_WAIT_MS = 10;

/** True for an error a log write may get past by trying again (a busy file, a signal, no room in a pipe for now). */
export function isTransientWriteError(err: unknown): boolean {
  return TRANSIENT.has((err as NodeJS.ErrnoException | null)?.code ?? '');
}

/** The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed. */
export function retryWaitMs(attempt: number): number {
  return LOG_RETRY_FIRST_WAIT_MS * 2 ** (attempt - 1);
}
