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
 * them); the sorted lists the rest need (two binary searches each) are made only for those.
 */
export class ShortForms {
  private readonly bodies = new Map<string, string>();
  /** How many bodies end with each SHORT_ID_LENGTH characters. */
  private readonly tails = new Map<string, number>();
  /** How many bodies begin with each SHORT_ID_LENGTH characters. */
  private readonly heads = new Map<string, number>();
  private sorted?: { byStart: string[]; byEnd: string[] };
  private readonly forms = new Map<string, string>();

  constructor(ids: Iterable<string>) {
    for (const id of ids) {
      const body = sessionIdBody(id);
      if (this.bodies.has(id)) continue;
      this.bodies.set(id, body);
      count(this.tails, body.slice(-SHORT_ID_LENGTH));
      count(this.heads, body.slice(0, SHORT_ID_LENGTH));
    }
  }

  has(id: string): boolean {
    return this.bodies.has(id);
  }

  /** The short form of `id`; undefined for an id not among them. */
  get(id: string): string | undefined {
    const body = this.bodies.get(id);
    if (body === undefined) return undefined;
    let form = this.forms.get(id);
    if (form === undefined) this.forms.set(id, (form = this.shortest(body) ?? this.formOf(id, body)));
    return form;
  }

  /** The last SHORT_ID_LENGTH characters, when no other id ends or begins with them. */
  private shortest(body: string): string | undefined {
    if (body.length <= SHORT_ID_LENGTH) return undefined;
    const tail = body.slice(-SHORT_ID_LENGTH);
    const ownHead = body.startsWith(tail) ? 1 : 0;
    return this.tails.get(tail) === 1 && (this.heads.get(tail) ?? 0) === ownHead ? tail : undefined;
  }

  private formOf(id: string, body: string): string {
    const { byStart, byEnd } = (this.sorted ??= sortedBodies(this.bodies.values()));
    const key = reversed(body);
    const at = firstAtLeast(byEnd, key);
    const neighbours = [byEnd[at - 1], byEnd[at + 1]].filter((n) => n !== undefined);
    // Reversed, a shared tail is a shared beginning.
    let length = Math.max(SHORT_ID_LENGTH, ...neighbours.map((n) => sharedTail(reversed(n), body) + 1));
    while (length < body.length && anotherBegins(byStart, body.slice(-length), body)) length++;
    return length >= body.length ? id : body.slice(-length);
  }
}

function count(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** The bodies ascending, and reversed ascending: ids whose ends are alike are neighbours there. */
function sortedBodies(bodies: Iterable<string>): { byStart: string[]; byEnd: string[] } {
  const byStart = [...bodies].sort();
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
