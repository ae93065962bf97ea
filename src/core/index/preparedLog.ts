// A main log made ready for the index by its writer: its fold and size, and when made on the
// index's worker thread (logPreparer.ts) every turn's search document too. The index then writes
// the session's row without reading the log back: a pull hands the words of 1,000 sessions to
// another core while it goes on writing.
import type { LogFold } from '../format/logFold';
import { foldPieces } from '../format/summary';
import { documentedTurns, turnDocument, type PreparedDocument } from './turnSearch';

export interface PreparedLog {
  readonly fold: LogFold;
  readonly logBytes: number;
  /** The documents of the turns {@link documentedTurns} names, as the index would read them from this log. */
  readonly documents?: readonly PreparedDocument[];
}

/** The fold, size and turn documents of a main log whose bytes are `bytes`. */
export function prepareLog(bytes: Buffer): PreparedLog {
  const { fold, logBytes } = foldPieces([bytes]);
  const documents = documentedTurns(fold, logBytes).map(({ turn, end }) => ({
    turn: turn.turn,
    start: turn.start,
    end,
    ...turnDocument(bytes.subarray(turn.start, end), turn.turn),
  }));
  return { fold, logBytes, documents };
}
