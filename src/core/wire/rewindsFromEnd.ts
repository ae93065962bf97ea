import type { KnownRecord } from './records';

/**
 * The rewinds met reading a log from its end (docs/reference.md, Wire records): a record is
 * effective when its turn is below every rewind met so far, save the rewinds an `undo_rewind`
 * undid. Going backwards, an undo is met before what it undid: the rewind it names (its
 * `toTurn`) and the follow-ups written after that rewind, which dropped nothing (each to a turn
 * at or above it). A rewind met after the one named, before a turn went on, is an earlier one
 * (to a later turn) and stays in force; so does every rewind once a turn's record is met. Every
 * reader that goes backwards through a log keeps one.
 */
export class RewindsFromEnd {
  /** The undo met last, while its rewinds may still be met: the turn it names, and whether that rewind was met. */
  private undoing: { toTurn: number; named: boolean } | undefined;

  constructor(private lowest = Number.POSITIVE_INFINITY) {}

  /** Takes the next record going backwards; true when it was a rewind or an undo (no record of a turn). */
  meet(record: KnownRecord): boolean {
    if (record.t === 'undo_rewind') {
      this.undoing = { toTurn: record.toTurn, named: false };
      return true;
    }
    if (record.t === 'rewind') {
      if (!this.undone(record.toTurn)) this.lowest = Math.min(this.lowest, record.toTurn);
      return true;
    }
    if (record.t === 'turn_begin' || record.t === 'message') this.undoing = undefined; // before the undone rewind: its turns, effective again
    return false;
  }

  /** Whether a rewind to `toTurn`, met now, is one the undo met last took back. */
  private undone(toTurn: number): boolean {
    const undo = this.undoing;
    if (!undo) return false;
    if (toTurn === undo.toTurn) {
      undo.named = true;
      return true;
    }
    if (toTurn > undo.toTurn && !undo.named) return true; // a follow-up of the rewind undone
    this.undoing = undefined;
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
