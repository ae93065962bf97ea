// What a search result shows of a matching turn. The full-text index is contentless (it keeps no
// text, so FTS4's snippet() has nothing to cut from): the turn's span is read from the log again
// and cut around the first word of the query it says.
import type { StoreLayout } from '../format/layout';
import type { SessionRow } from './indexRows';
import { queryWords } from './searchText';
import type { TurnHit } from './turnSearch';
import { SpanReader, turnContent } from './turnText';
import { wordFinder } from './wordRules';

/** A piece of a turn's text around a match, on one line; `match` is where the word lies in `text` (UTF-16 units), null when none was found. */
export interface Snippet {
  readonly text: string;
  readonly match: readonly [number, number] | null;
}

const BEFORE = 40;
const LENGTH = 160;

/**
 * The snippet of a matching turn of the session whose main log `log` reads: around the first query
 * word it says (the title for turn 0, the changed file for a search by file alone).
 */
export function turnSnippet(log: SpanReader, hit: TurnHit, query: string, extra: { title: string; file?: string }): Snippet {
  if (hit.turn === 0) return cut([extra.title], query);
  const content = turnContent(log.read(hit.start, hit.end), hit.turn);
  if (queryWords(query).length === 0 && extra.file) {
    const file = content.files.find((f) => f === extra.file || f.endsWith(`/${extra.file}`)) ?? extra.file;
    return cut([`changed ${file}`], file);
  }
  return cut(content.texts, query);
}

/** The first text saying a word of `query`, cut around it; the first text's start when none does. */
function cut(texts: readonly string[], query: string): Snippet {
  const find = wordFinder(queryWords(query));
  for (const raw of texts) {
    const text = raw.replace(/\s+/g, ' ');
    const at = find(text);
    if (at) {
      const from = Math.max(0, at[0] - BEFORE);
      const lead = from > 0 ? '…' : '';
      const piece = text.slice(from, from + LENGTH);
      const tail = from + LENGTH < text.length ? '…' : '';
      const shift = lead.length - from;
      return { text: `${lead}${piece}${tail}`, match: [at[0] + shift, Math.min(at[1], from + LENGTH) + shift] };
    }
  }
  const first = (texts.find((t) => t.trim()) ?? '').replace(/\s+/g, ' ').trim();
  return { text: first.length > LENGTH ? `${first.slice(0, LENGTH)}…` : first, match: null };
}

/** A matching turn as a result shows it: its number (0: the title), snippet and match, and its span in the main log. */
export interface TurnResult {
  readonly turn: number;
  readonly snippet: string;
  /** Where the match lies in `snippet`; null when the snippet shows none. */
  readonly match: readonly [number, number] | null;
  readonly start: number;
  readonly end: number;
}

/** The snippets of a session's matching turns, each read from its span of the session's main log. */
export function turnResults(layout: StoreLayout, row: SessionRow, turns: readonly TurnHit[], query: string, file?: string): TurnResult[] {
  const log = new SpanReader(layout.agentLog(layout.sessionDir(row.workspaceKey, row.id)));
  try {
    return turns.map((hit) => {
      const snippet = turnSnippet(log, hit, query, { title: row.title, ...(file ? { file } : {}) });
      return { turn: hit.turn, snippet: snippet.text, match: snippet.match, start: hit.start, end: hit.end };
    });
  } finally {
    log.close();
  }
}
