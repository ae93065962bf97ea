import type { ViewEntry } from './chatModel';

/**
 * Prompts that, alone, ask the agent to go on with what it was doing: they continue the request
 * before them rather than start one (compared lowercased, spaces collapsed, end punctuation dropped).
 */
export const FOLLOW_UP_PROMPTS: ReadonlySet<string> = new Set([
  'continue',
  'please continue',
  'continue please',
  'go on',
  'keep going',
  'carry on',
  'proceed',
  'go ahead',
  'do it',
  'resume',
  'yes',
  'yes please',
  'y',
  'yep',
  'ok',
  'okay',
  'try again',
  'retry',
  'again',
]);

/** Why a turn belongs to the request before it. */
export type RequestLink = 'retry' | 'follow-up' | 'automatic';

/** A prompt as compared: lowercased, spaces collapsed, without the punctuation that ends it. */
function normal(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.!…]+$/u, '');
}

/**
 * How a prompt continues the request whose prompts so far are `request` (undefined: it starts a
 * new request). A retry sends again the text of one of them; a follow-up is one of
 * {@link FOLLOW_UP_PROMPTS}.
 */
export function requestLink(text: string, request: readonly string[]): RequestLink | undefined {
  const said = normal(text);
  if (request.some((t) => normal(t) === said)) return 'retry';
  if (FOLLOW_UP_PROMPTS.has(said)) return 'follow-up';
  return undefined;
}

/** One request in the transcript: the index of its prompt, of each later turn's start, and its end (exclusive). */
export interface RequestSpan {
  readonly start: number;
  readonly turns: readonly number[];
  readonly end: number;
}

/**
 * The requests of a transcript. A prompt (sent, or pending) starts a request unless it is a
 * retry or a follow-up of the one before; a prompt Braid sent itself (context by `braid`, an
 * automatic turn) always continues it. Entries before the first prompt belong to none.
 */
export function requestSpans(entries: readonly ViewEntry[]): RequestSpan[] {
  const spans: { start: number; turns: number[]; end: number; texts: string[] }[] = [];
  entries.forEach((entry, i) => {
    const current = spans.at(-1);
    const prompt = entry.kind === 'user' || entry.kind === 'pending' ? entry.text : undefined;
    const automatic = entry.kind === 'context' && entry.by === 'braid';
    if (current && (automatic || (prompt !== undefined && requestLink(prompt, current.texts)))) {
      current.turns.push(i);
      if (prompt !== undefined) current.texts.push(prompt);
    } else if (prompt !== undefined) spans.push({ start: i, turns: [], end: i + 1, texts: [prompt] });
    const open = spans.at(-1);
    if (open) open.end = i + 1;
  });
  return spans.map(({ start, turns, end }) => ({ start, turns, end }));
}

/** The toggle under a request's first turn that shows or hides its later turns. */
export interface TurnsToggle {
  readonly kind: 'turns';
  readonly key: string;
  /** How many turns after the first. */
  readonly more: number;
  readonly open: boolean;
}

/** What the page lists: the entries, and the toggles of requests of several turns. */
export type ListedEntry = ViewEntry | TurnsToggle;

/** The key of a request's toggle, from its prompt's key. */
export const turnsKey = (promptKey: string) => `turns:${promptKey}`;

/**
 * The entries as the page lists them: a request of several turns shows its first turn, then a
 * toggle; its later turns only when open. `open` holds what the user chose, by toggle key; without
 * a choice only the newest request is open (it is the one being worked on).
 */
export function collapseRequests(entries: readonly ViewEntry[], open: ReadonlyMap<string, boolean>): ListedEntry[] {
  const spans = requestSpans(entries).filter((s) => s.turns.length > 0);
  if (spans.length === 0) return entries.slice();
  const shown: ListedEntry[] = [];
  let at = 0;
  for (const span of spans) {
    const firstTurnEnd = span.turns[0]!;
    shown.push(...entries.slice(at, firstTurnEnd));
    const key = turnsKey(entries[span.start]!.key);
    const isOpen = open.get(key) ?? span.end === entries.length;
    shown.push({ kind: 'turns', key, more: span.turns.length, open: isOpen });
    if (isOpen) shown.push(...entries.slice(firstTurnEnd, span.end));
    at = span.end;
  }
  shown.push(...entries.slice(at));
  return shown;
}
