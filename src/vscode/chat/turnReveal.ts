// The turn a search result (or a line blame names) opens the Chat view at (protocol: TurnReveal):
// which of the session's entries are the turn's, and the words the page marks in them. No vscode import.
import { queryWords } from '../../core/index/searchText';
import type { TurnHit } from '../../core/index/turnSearch';
import type { MessageRecord } from '../../core/wire/records';
import { readWireLog } from '../../core/wire/wireReader';
import { MAX_REVEAL_WORD, MAX_REVEAL_WORDS, type TurnReveal } from '../../protocol/messages';
import { toEntries } from './transcript';

/** A reveal before the chat gives it its id. */
export type TurnTarget = Omit<TurnReveal, 'id'>;

/**
 * Where turn `hit` of the session whose main log is `log` shows, with the words of `query` to
 * mark (none without a query: the turn is opened, nothing marked): the keys of its first and last
 * entries, read from its span of the log (as a page of the transcript makes them). Undefined for
 * the title (turn 0) and a turn without entries.
 */
export function turnTarget(log: string, hit: TurnHit, query = ''): TurnTarget | undefined {
  const words = queryWords(query)
    .filter((w) => w.length <= MAX_REVEAL_WORD)
    .slice(0, MAX_REVEAL_WORDS);
  if (hit.turn === 0) return undefined;
  const { records } = readWireLog(log, { start: hit.start, end: hit.end, only: ['message'] });
  // A span can hold a record of another turn (one appended late); only the turn's own are its entries.
  const messages = records.filter((r): r is MessageRecord => r.t === 'message');
  const keys = toEntries(messages.filter((r) => r.turn === hit.turn)).map((e) => e.key);
  if (keys.length === 0) return undefined;
  return { turn: hit.turn, from: keys[0]!, to: keys.at(-1)!, words };
}
