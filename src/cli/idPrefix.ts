/**
 * Ids typed shortened, like git's abbreviated hashes: any beginning of an id that no other id
 * shares, with or without its kind's prefix (`ses_01M8QS` or `01M8QS` for a session, `3fa2b1c`
 * or `msg-user-v1-3fa2b1c` for a prompt), letters in either case. The one resolver behind every
 * command that takes a session id and behind `rewind --to`.
 */
import { UsageError } from './args';
import { firstOf, ListedError } from './listedError';

/** A kind of id: what to call it, and the prefixes its full ids begin with (longest first). */
export interface IdKind {
  readonly noun: string;
  readonly prefixes: readonly string[];
  /** How a shortened id relates to the ids it names, in an ambiguity's message. */
  readonly matches: string;
}

/** A session's id (`ses_` and a ULID), typed by its beginning or, without `ses_`, its end (the short form it is shown by). */
export const SESSION_IDS: IdKind = { noun: 'session', prefixes: ['ses_'], matches: 'begins or ends' };
/** A prompt's id: derived (`msg-user-v1-` and 64 hex digits), or a ULID one (`msg_`). */
export const PROMPT_IDS: IdKind = { noun: 'prompt', prefixes: ['msg-user-v1-', 'msg_'], matches: 'begins' };

/** The fewest characters (after the prefix) an id may be shortened to, as git asks for 4. */
export const MIN_TYPED = 4;
/** The fewest characters a shortened id is shown with, as git's 7. */
export const MIN_SHOWN = 7;
/** Candidates an ambiguous id lists at most. */
const LISTED = 10;

/** An id's kind prefix and the rest of it (its body). */
export function splitId(id: string, kind: IdKind): { prefix: string; body: string } {
  const prefix = kind.prefixes.find((p) => id.startsWith(p)) ?? '';
  return { prefix, body: id.slice(prefix.length) };
}

/** Does `typed` begin `id`? With a prefix typed it must be the id's own; the body compares in either case. */
export function begins(typed: string, id: string, kind: IdKind): boolean {
  const t = splitId(typed, kind);
  const c = splitId(id, kind);
  if (t.prefix && t.prefix !== c.prefix) return false;
  return c.body.toUpperCase().startsWith(t.body.toUpperCase());
}

/** A shortened id too short to mean anything is bad usage. */
export function checkTypedLength(typed: string, kind: IdKind): void {
  if (splitId(typed, kind).body.length < MIN_TYPED) {
    throw new UsageError(`"${typed}" is too short for a ${kind.noun} id; give at least ${MIN_TYPED} characters of it`);
  }
}

/**
 * The one id among `found` (the candidates `typed` begins; `truncated`: there may be more). None:
 * `notFound()` says why. More than one: a ListedError naming each as `describe` puts it, so the
 * user can type more of the one they mean.
 */
export function pickOne(
  typed: string,
  found: readonly string[],
  kind: IdKind,
  options: { notFound: () => Error; describe: (id: string) => string; truncated?: boolean },
): string {
  if (found.length === 0) throw options.notFound();
  if (found.length === 1 && !options.truncated) return found[0]!;
  const count = options.truncated ? `at least ${found.length}` : String(found.length);
  throw new ListedError(`"${typed}" ${kind.matches} ${count} ${kind.noun} ids; type more of the one you mean:`, firstOf(found.map(options.describe), LISTED));
}

/** Picks the id `typed` names among `candidates` (each a full id): itself when whole, else the one it begins. */
export function resolveId(
  typed: string,
  candidates: Iterable<string>,
  kind: IdKind,
  options: { notFound: () => Error; describe: (id: string) => string },
): string {
  const all = [...new Set(candidates)];
  if (all.includes(typed)) return typed;
  checkTypedLength(typed, kind);
  return pickOne(
    typed,
    all.filter((id) => begins(typed, id, kind)),
    kind,
    options,
  );
}

/**
 * Each id's shortest shown form: the beginning of its body that no other of `ids` shares, at
 * least MIN_SHOWN characters (the whole body when shorter), as git shortens hashes.
 */
export function shortForms(ids: Iterable<string>, kind: IdKind): Map<string, string> {
  const bodies = [...new Set(ids)].map((id) => ({ id, body: splitId(id, kind).body })).map((e) => ({ ...e, key: e.body.toUpperCase() }));
  bodies.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const shared = (i: number, j: number) => {
    const a = bodies[i]?.key;
    const b = bodies[j]?.key;
    if (a === undefined || b === undefined) return 0;
    let n = 0;
    while (n < a.length && a[n] === b[n]) n++;
    return n;
  };
  const forms = new Map<string, string>();
  bodies.forEach((e, i) => forms.set(e.id, e.body.slice(0, Math.max(MIN_SHOWN, Math.max(shared(i, i - 1), shared(i, i + 1)) + 1))));
  return forms;
}
