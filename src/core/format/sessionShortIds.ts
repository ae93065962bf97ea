/**
 * The short form a session is shown by. A session id is `ses_` and a ULID, whose first ten
 * characters are its time: sessions made minutes apart share five or six of them, and sessions
 * imported together twelve or more. Its last characters are random (for sessions made in the same
 * millisecond, counted up), so a session is shown by the end of its id: the shortest tail, at
 * least SHORT_ID_LENGTH characters, that no other session's id ends or begins with. The CLI takes
 * that form back (docs/cli.md, session ids).
 */

import { listSessionFolders, type StoreLayout } from './layout';

/** The fewest characters a session's short form has: unique among thousands of sessions in practice. */
export const SHORT_ID_LENGTH = 6;

const PREFIX = 'ses_';

/** The short form of each session among every session folder of the store; an id it does not know is shown whole. */
export function storeShortForms(layout: StoreLayout): (id: string) => string {
  const forms = sessionShortForms(listSessionFolders(layout).map((f) => f.id));
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
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < start) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < sorted.length && sorted[i]!.startsWith(start); i++) if (sorted[i] !== self) return true;
  return false;
}

/** Each session's short form among `ids` (every session of the store, so that each form names one). */
export function sessionShortForms(ids: Iterable<string>): Map<string, string> {
  const entries = [...new Set(ids)].map((id) => ({ id, body: sessionIdBody(id) }));
  const byStart = entries.map((e) => e.body).sort();
  const reversed = (s: string) => [...s].reverse().join('');
  const byEnd = entries.map((e) => ({ ...e, key: reversed(e.body) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const forms = new Map<string, string>();
  byEnd.forEach((e, i) => {
    const neighbours = [byEnd[i - 1], byEnd[i + 1]].filter((n) => n !== undefined);
    let length = Math.max(SHORT_ID_LENGTH, ...neighbours.map((n) => sharedTail(n.body, e.body) + 1));
    while (length < e.body.length && anotherBegins(byStart, e.body.slice(-length), e.body)) length++;
    forms.set(e.id, length >= e.body.length ? e.id : e.body.slice(-length));
  });
  return forms;
}
