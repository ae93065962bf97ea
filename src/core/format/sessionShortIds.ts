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

/** The short forms of a set of session ids, each found by two binary searches when first asked. */
export class ShortForms {
  private readonly bodies = new Map<string, string>();
  /** The ids' bodies, ascending. */
  private readonly byStart: string[];
  /** The ids' bodies reversed, ascending: ids whose ends are alike are neighbours. */
  private readonly byEnd: string[];
  private readonly forms = new Map<string, string>();

  constructor(ids: Iterable<string>) {
    for (const id of ids) this.bodies.set(id, sessionIdBody(id));
    this.byStart = [...this.bodies.values()].sort();
    this.byEnd = this.byStart.map(reversed).sort();
  }

  has(id: string): boolean {
    return this.bodies.has(id);
  }

  /** The short form of `id`; undefined for an id not among them. */
  get(id: string): string | undefined {
    const body = this.bodies.get(id);
    if (body === undefined) return undefined;
    let form = this.forms.get(id);
    if (form === undefined) this.forms.set(id, (form = this.formOf(id, body)));
    return form;
  }

  private formOf(id: string, body: string): string {
    const key = reversed(body);
    const at = firstAtLeast(this.byEnd, key);
    const neighbours = [this.byEnd[at - 1], this.byEnd[at + 1]].filter((n) => n !== undefined);
    // Reversed, a shared tail is a shared beginning.
    let length = Math.max(SHORT_ID_LENGTH, ...neighbours.map((n) => sharedTail(reversed(n), body) + 1));
    while (length < body.length && anotherBegins(this.byStart, body.slice(-length), body)) length++;
    return length >= body.length ? id : body.slice(-length);
  }
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
