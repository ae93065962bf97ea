import type { KnownRecord } from './records';

/**
 * The rewinds met reading a log from its end (docs/reference.md, Wire records): a record is
 * effective when its turn is below every rewind met so far, save the rewinds an `undo_rewind`
 * undid (met before them going backwards: the rewind and its follow-ups, up to the turn before
 * it). Every reader that goes backwards through a log keeps one.
 */
export class RewindsFromEnd {
  private undoing = false;

  constructor(private lowest = Number.POSITIVE_INFINITY) {}

  /** Takes the next record going backwards; true when it was a rewind or an undo (no record of a turn). */
  meet(record: KnownRecord): boolean {
    if (record.t === 'undo_rewind') {
      this.undoing = true;
      return true;
    }
    if (record.t === 'rewind') {
      if (!this.undoing) this.lowest = Math.min(this.lowest, record.toTurn);
      return true;
    }
    if (record.t === 'turn_begin' || record.t === 'message') this.undoing = false; // before the undone rewind: its turns, effective again
    return false;
  }

  /** Whether a record of `turn`, met now, is in the history. */
  effective(turn: number): boolean {
    return turn < this.lowest;
  }

  /** The lowest rewind in force (Infinity: none), for a reader to go on from later. */
  get lowestRewind(): number {
    return this.lowest;
  }
}
