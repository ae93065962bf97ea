/**
 * The short form a session is shown by. A session id is `ses_` and a ULID, whose first ten
 * characters are its time: sessions made minutes apart share five or six of them, and sessions
 * imported together twelve or more. Its last characters are random (for sessions made in the same
 * millisecond, counted up), so a session is shown by the end of its id: the shortest tail, at
 * least SHORT_ID_LENGTH characters, that no other session's id ends or begins with. The CLI takes
 * that form back (docs/cli.md, session ids).
 */

import { listSessionIds, type StoreLayout } from './layout';

/** The fewest characters a session's short form has: unique among thousands of sessions in practice. */
export const SHORT_ID_LENGTH = 6;

const PREFIX = 'ses_';

/** The short form of each session among every session folder of the store; an id it does not know is shown whole. */
export function storeShortForms(layout: StoreLayout): (id: string) => string {
  const forms = sessionShortForms(listSessionIds(layout));
  return (id) => forms.get(id) ?? id;
}

/** A session id without its `ses_`, upper case (ids are compared in either case). */
export function sessionIdBody(id: string): string {
  return (id.startsWith(PREFIX) ? id.slice(PREFIX.length) : id).toUpperCase();
}

/** How many trailing characters two texts share. */
function sharedTail(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/** Does any text of `sorted` (ascending) other than `self` begin with `start`? */
function anotherBegins(sorted: readonly string[], start: string, self: string): boolean {
  for (let i = firstAtLeast(sorted, start); i < sorted.length && sorted[i]!.startsWith(start); i++) if (sorted[i] !== self) return true;
  return false;
}

/**
 * Each session's short form among `ids` (every session of the store, so that each form names one),
 * worked out when first asked: a list shows a page of a store's thousands of sessions.
 */
export function sessionShortForms(ids: Iterable<string>): ShortForms {
  return new ShortForms(ids);
}

/**
 * The short forms of a set of session ids, each worked out when first asked. Most ids' form is
 * their last SHORT_ID_LENGTH characters, told by two counts (how many ids end and begin with
 * them), kept by those characters' value as a number: no text is made for the thousands of ids
 * not shown. The sorted lists the rest need (two binary searches each) are made only for those.
 */
export class ShortForms {
  private readonly list: string[];
  /** The ids, made when first needed (an id no fast form answers). */
  private idSet?: Set<string>;
  /** The id that ends with each SHORT_ID_LENGTH characters (by their value, codeOf); null when several do. */
  private readonly tails = new Map<number, string | null>();
  /** How many ids begin with each SHORT_ID_LENGTH characters. */
  private readonly heads = new Map<number, number>();
  private sorted?: { byStart: string[]; byEnd: string[] };
  private readonly forms = new Map<string, string>();

  constructor(ids: Iterable<string>) {
    this.list = [...ids];
    for (const id of this.list) {
      const from = id.startsWith(PREFIX) ? PREFIX.length : 0;
      const tail = codeOf(id, id.length - SHORT_ID_LENGTH, from);
      if (tail >= 0) this.tails.set(tail, this.tails.has(tail) && this.tails.get(tail) !== id ? null : id);
      const head = codeOf(id, from, from);
      if (head >= 0) this.heads.set(head, (this.heads.get(head) ?? 0) + 1);
    }
  }

  has(id: string): boolean {
    return this.ids().has(id);
  }

  /** The short form of `id`; undefined for an id not among them. */
  get(id: string): string | undefined {
    let form = this.forms.get(id);
    if (form !== undefined) return form;
    const body = sessionIdBody(id);
    form = this.shortest(id, body);
    if (form === undefined) {
      if (!this.ids().has(id)) return undefined;
      form = this.formOf(id, body);
    }
    this.forms.set(id, form);
    return form;
  }

  private ids(): Set<string> {
    return (this.idSet ??= new Set(this.list));
  }

  /** The last SHORT_ID_LENGTH characters of `id`, when it is the one id that ends with them and no other begins with them. */
  private shortest(id: string, body: string): string | undefined {
    if (body.length <= SHORT_ID_LENGTH) return undefined;
    const tail = codeOf(body, body.length - SHORT_ID_LENGTH, 0);
    if (tail < 0 || this.tails.get(tail) !== id) return undefined;
    const ownHead = codeOf(body, 0, 0) === tail ? 1 : 0;
    return (this.heads.get(tail) ?? 0) === ownHead ? body.slice(-SHORT_ID_LENGTH) : undefined;
  }

  private formOf(id: string, body: string): string {
    const { byStart, byEnd } = (this.sorted ??= sortedBodies([...this.ids()].map(sessionIdBody)));
    const key = reversed(body);
    const at = firstAtLeast(byEnd, key);
    const neighbours = [byEnd[at - 1], byEnd[at + 1]].filter((n) => n !== undefined);
    // Reversed, a shared tail is a shared beginning.
    let length = Math.max(SHORT_ID_LENGTH, ...neighbours.map((n) => sharedTail(reversed(n), body) + 1));
    while (length < body.length && anotherBegins(byStart, body.slice(-length), body)) length++;
    return length >= body.length ? id : body.slice(-length);
  }
}

/** The characters of a ULID (Crockford's base 32), each worth its place; either case. */
const ULID_CHARACTERS = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CHARACTER_VALUE = new Int8Array(128).fill(-1);
for (const [i, c] of [...ULID_CHARACTERS].entries()) CHARACTER_VALUE[c.charCodeAt(0)] = CHARACTER_VALUE[c.toLowerCase().charCodeAt(0)] = i;

/**
 * The SHORT_ID_LENGTH characters of `text` from `at` as one number (five bits each), the same for
 * either case; -1 when they begin before `from` or one is not a ULID character (such characters end
 * no other id the same way, as every counted id's are ULID characters).
 */
function codeOf(text: string, at: number, from: number): number {
  if (at < from || at + SHORT_ID_LENGTH > text.length) return -1;
  let code = 0;
  for (let i = at; i < at + SHORT_ID_LENGTH; i++) {
    const c = text.charCodeAt(i);
    const value = c < 128 ? CHARACTER_VALUE[c]! : -1;
    if (value < 0) return -1;
    code = code * 32 + value;
  }
  return code;
}

/** The bodies ascending, and reversed ascending: ids whose ends are alike are neighbours there. */
function sortedBodies(bodies: string[]): { byStart: string[]; byEnd: string[] } {
  const byStart = bodies.sort();
  return { byStart, byEnd: byStart.map(reversed).sort() };
}

/** `s` backwards (ids are ASCII: no pair of code units to keep together). */
function reversed(s: string): string {
  let r = '';
  for (let i = s.length - 1; i >= 0; i--) r += s[i];
  return r;
}

/** The index of the first text of `sorted` (ascending) not below `start`. */
function firstAtLeast(sorted: readonly string[], start: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
