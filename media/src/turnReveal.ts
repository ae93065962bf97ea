import type { TurnReveal } from '../../src/protocol/messages';
import type { ViewEntry } from './chatModel';
import { hasMatch, wordsPattern } from './wordMatch';
import { requestSpans, turnsKey } from './requests';

/** What an entry shows as said: a prompt, an answer and its thinking, a tool call's summary, arguments, diff and result, context. */
export function saidText(entry: ViewEntry): string {
  switch (entry.kind) {
    case 'user':
    case 'pending':
    case 'context':
      return entry.text;
    case 'assistant':
    case 'live':
      return `${entry.text}\n${entry.thinking}`;
    case 'tool':
      return [entry.summary, entry.args, entry.diff, entry.result].join('\n');
    default:
      return '';
  }
}

/**
 * The turn a search result opened the session at, as the page finds it among its entries: which
 * entries are the turn's (their words are marked), the one to bring on screen, and the requests
 * to open so it is listed. No DOM: main.ts pages back, scrolls and marks.
 */
export class RevealedTurn {
  /** The searched words' pattern (highlight.ts). */
  readonly pattern: RegExp | undefined;
  private keys: ReadonlySet<string> = new Set();

  constructor(readonly target: TurnReveal) {
    this.pattern = wordsPattern(target.words);
  }

  /** Whether the turn's first entry was found (an older page may hold it). */
  get found(): boolean {
    return this.keys.size > 0;
  }

  /** Whether entry `key` is one of the turn's. */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Finds the turn in `entries`: its first entry to its last. True when it was found just now. */
  locate(entries: readonly ViewEntry[]): boolean {
    if (this.found) return false;
    const from = entries.findIndex((e) => e.key === this.target.from);
    if (from < 0) return false;
    const to = entries.findIndex((e, i) => i >= from && e.key === this.target.to);
    this.keys = new Set(entries.slice(from, to < 0 ? entries.length : to + 1).map((e) => e.key));
    return true;
  }

  /** The entry to bring on screen: the turn's first that says a searched word, else its first. */
  focus(entries: readonly ViewEntry[]): string {
    const pattern = this.pattern;
    const said = pattern && entries.find((e) => this.has(e.key) && hasMatch(saidText(e), pattern));
    return said ? said.key : this.target.from;
  }

  /** The toggles of the requests that list part of the turn only when open, and are closed in `open` (requests.ts). */
  closedToggles(entries: readonly ViewEntry[], open: ReadonlyMap<string, boolean>): string[] {
    return requestSpans(entries)
      .filter((span) => span.turns.length > 0 && entries.slice(span.turns[0], span.end).some((e) => this.has(e.key)))
      .map((span) => ({ key: turnsKey(entries[span.start]!.key), newest: span.end === entries.length }))
      .filter(({ key, newest }) => !(open.get(key) ?? newest))
      .map(({ key }) => key);
  }
}
