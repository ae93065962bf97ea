/**
 * Records of a log's turns with its rewinds applied in file order (docs/reference.md, Wire
 * records): a `rewind` drops those of turns >= its toTurn and keeps the list as it was, and an
 * `undo_rewind` puts it back while no turn went on since (no `turn_begin` or `message` came). A
 * follow-up rewind (one that drops nothing more) leaves what the rewind before it kept. Every
 * reader that keeps turn-scoped records in file order keeps them in one.
 */
export class EffectiveTurns<T extends { readonly turn: number; readonly t?: string }> {
  private list: T[] = [];
  /** The list before the last rewind that dropped something, and its length after that rewind. */
  private beforeRewind: { readonly items: T[]; readonly length: number } | undefined;

  get items(): readonly T[] {
    return this.list;
  }

  push(item: T): void {
    this.list.push(item);
    if (item.t === 'turn_begin' || item.t === 'message') this.beforeRewind = undefined;
  }

  rewind(toTurn: number): void {
    const kept = this.list.filter((item) => item.turn < toTurn);
    if (kept.length === this.list.length) return;
    this.beforeRewind = { items: this.list, length: kept.length };
    this.list = kept;
  }

  /**
   * Forgets the records kept so far that `which` names, and what an undo would put back: a fork's
   * mark says the records before it are another machine's (see `marksPulled`).
   */
  drop(which: (item: T) => boolean): void {
    this.list = this.list.filter((item) => !which(item));
    this.beforeRewind = undefined;
  }

  /** Puts back what the last rewind dropped, before whatever came since (no turn went on: other records of turns, kept after it). */
  undo(): void {
    const before = this.beforeRewind;
    if (!before) return;
    this.list = [...before.items, ...this.list.slice(before.length)];
    this.beforeRewind = undefined;
  }
}
