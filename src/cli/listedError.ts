/**
 * An error the user settles by choosing: its message is the one line `braid: …` says, and each
 * detail (a candidate id, a data folder) follows on a line of its own. Exit 1.
 */
export class ListedError extends Error {
  override readonly name = 'ListedError';

  constructor(
    message: string,
    readonly details: readonly string[],
    /** The exit code: 1, or 2 when the choice is the caller's to make with an option (bad usage). */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** At most `limit` of `lines`, and how many were left out. */
export function firstOf(lines: readonly string[], limit: number): string[] {
  return lines.length <= limit ? [...lines] : [...lines.slice(0, limit), `… and ${lines.length - limit} more`];
}
