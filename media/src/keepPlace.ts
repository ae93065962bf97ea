// Where the reader was, kept across a fresh snapshot of the session shown (the host sends one on a
// resync, a change of trust or settings): a snapshot carries the newest page only, so a place
// further back is loaded again, an older page at a time, but no deeper than the reader had gone.
// No DOM: the page says what is loaded and does what a step asks.

/** What the page does next to get back to the reader's place. */
export interface PlaceStep {
  /** The row to show at the top: it is loaded again. */
  readonly scrollTo?: string;
  /** Ask for an older page: the row is not loaded yet, and the reader had gone further back. */
  readonly loadOlder: boolean;
}

export class PlaceKeeper {
  private wanted: { key: string; depth: number } | undefined;

  /**
   * A snapshot of the same session replaced what was loaded: `key`, the row that was at the top
   * (none when the view followed the end), and `depth`, how many messages were loaded then.
   */
  start(key: string | undefined, depth: number): void {
    this.wanted = key === undefined ? undefined : { key, depth };
  }

  /** Another session is shown, or the reader moved on: nothing to get back to. */
  forget(): void {
    this.wanted = undefined;
  }

  /** The next step, now that `loaded` messages are (`has` tells whether a row is) and older ones remain when `more`. */
  step(has: (key: string) => boolean, loaded: number, more: boolean): PlaceStep {
    const wanted = this.wanted;
    if (!wanted) return { loadOlder: false };
    if (has(wanted.key)) {
      this.wanted = undefined;
      return { scrollTo: wanted.key, loadOlder: false };
    }
    if (more && loaded < wanted.depth) return { loadOlder: true };
    this.wanted = undefined; // gone from the log (a rewind), or deeper than the reader had been
    return { loadOlder: false };
  }
}
