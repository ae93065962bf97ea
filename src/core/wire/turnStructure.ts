import { isKnown, type WireRecord } from './records';

/**
 * The turn structure of a main log, read record by record (docs/reference.md, Wire records): one writer numbers its
 * turns 1, 2, 3... and a `rewind {toTurn: k}` starts numbering from k again. Two processes writing
 * one session at once break that: a turn that begins twice or ends twice, records of an older turn
 * after a newer one began, turn numbers going backwards without a rewind. Records of the last turn
 * after its end are not a problem (crash recovery closes tool calls there; a compaction between
 * turns belongs to the last turn).
 */
export class TurnStructure {
  private begun = new Set<number>();
  private ended = new Set<number>();
  private latest = 0;
  /** The sets and latest turn before the last rewind, for its undo. */
  private beforeRewind: { begun: Set<number>; ended: Set<number>; latest: number } | undefined;
  /** The first problem of each kind, described; the others are counted. */
  private readonly first = new Map<string, string>();
  private count = 0;

  /** Takes the next record of the log, found at byte `offset`. */
  add(record: WireRecord, offset: number): void {
    if (!isKnown(record)) return;
    if (record.t === 'rewind') {
      if (this.latest < record.toTurn) return; // a follow-up: nothing more to drop
      this.beforeRewind = { begun: new Set(this.begun), ended: new Set(this.ended), latest: this.latest };
      for (const set of [this.begun, this.ended]) for (const turn of set) if (turn >= record.toTurn) set.delete(turn);
      this.latest = record.toTurn - 1;
      return;
    }
    if (record.t === 'undo_rewind') {
      if (this.beforeRewind) ({ begun: this.begun, ended: this.ended, latest: this.latest } = this.beforeRewind);
      this.beforeRewind = undefined;
      return;
    }
    const turn = (record as { turn?: unknown }).turn;
    if (typeof turn !== 'number') return;
    if (record.t === 'turn_begin') {
      if (turn < this.latest) this.note('backwards', `turn ${turn} begins after turn ${this.latest} without a rewind (at byte ${offset})`);
      else if (this.begun.has(turn)) this.note('begins', `turn ${turn} begins twice (at byte ${offset})`);
      this.begun.add(turn);
      this.latest = Math.max(this.latest, turn);
      return;
    }
    if (turn < this.latest) this.note('older', `a ${record.t} record of turn ${turn} comes after turn ${this.latest} began (at byte ${offset})`);
    if (record.t === 'turn_end') {
      if (this.ended.has(turn)) this.note('ends', `turn ${turn} ends twice (at byte ${offset})`);
      this.ended.add(turn);
    }
  }

  /** What is wrong (the first problem of each kind, and how many in all), or undefined when the structure is clean. */
  describe(): string | undefined {
    if (this.count === 0) return undefined;
    const more = this.count > this.first.size ? ` (${this.count} problems in all)` : '';
    return `${[...this.first.values()].join('; ')}${more}`;
  }

  /** The highest effective turn that has ended (0 when none): what state.json's turn count should at least be. */
  get lastEnded(): number {
    return Math.max(0, ...this.ended);
  }

  private note(kind: string, problem: string): void {
    this.count++;
    if (!this.first.has(kind)) this.first.set(kind, problem);
  }
}
