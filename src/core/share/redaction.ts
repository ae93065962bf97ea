/**
 * What a line is redacted against (docs/reference.md, What leaves the machine). Its rules are
 * compiled once per context object: give every line of a push the same one, and do not change it.
 */
export interface RedactionContext {
  /** Folders whose paths become relative: the session's workspace folders (real paths). A path inside one becomes relative to it ("." for the folder itself); longest folder wins. */
  readonly folders: readonly string[];
  /** The home folder: an absolute path under it and outside every folder becomes `~/...`. */
  readonly home: string;
  /** Secret values Braid knows (API keys): replaced wherever they appear, whole or inside a longer string. */
  readonly secrets: readonly string[];
}

/**
 * What a redaction replaced: `known-key` (a secret Braid knows), `token` (a token's or a secret
 * assignment's shape), `high-entropy` (a random-looking run in tool output), `path` (an absolute
 * path made relative), `image` (image data left out), `unreadable-line` (a line that is not JSON,
 * not sent).
 */
export type RedactionKind = 'known-key' | 'token' | 'high-entropy' | 'path' | 'image' | 'unreadable-line';

/** One thing taken out of or rewritten in a line (docs/reference.md, What leaves the machine). */
export interface Redaction {
  readonly kind: RedactionKind;
  /** Where: the record type, a space, and the JSON path, e.g. "message message.content[2].text" (a key that is not a plain name shows as `*`). */
  readonly where: string;
  /** A preview safe to print: at most the first 4 characters then "…" (never the secret), or for a path the path after rewriting. */
  readonly sample: string;
}

/** What stands in place of what was taken out. */
export const MARK = {
  key: '[REDACTED:key]',
  token: '[REDACTED:token]',
  entropy: '[REDACTED:entropy]',
  image: '[image not shared]',
} as const;

/** How every mark begins: a value that already starts so is not redacted again. */
export const MARK_START = '[REDACTED:';

/** A stretch `[start, end)` of a text to replace by `by`, and how to report it. */
export interface Cut {
  readonly start: number;
  readonly end: number;
  readonly by: string;
  readonly kind: RedactionKind;
  readonly sample: string;
}

/**
 * The start of a secret, safe to show: a quarter of it at most and never more than 4 characters
 * (a 7-character password shows 1), then "…".
 */
export function sampleOf(secret: string): string {
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 4)))}…`;
}

/** `cuts` ordered by start, with any cut that overlaps an earlier one (or starts with it and is shorter) left out. */
export function disjoint(cuts: Cut[]): Cut[] {
  if (cuts.length < 2) return cuts;
  const sorted = [...cuts].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Cut[] = [];
  for (const cut of sorted) if (kept.length === 0 || cut.start >= kept[kept.length - 1]!.end) kept.push(cut);
  return kept;
}

/** `text` with disjoint, ordered `cuts` applied. */
export function applyCuts(text: string, cuts: readonly Cut[]): string {
  let out = '';
  let at = 0;
  for (const cut of cuts) {
    out += text.slice(at, cut.start) + cut.by;
    at = cut.end;
  }
  return out + text.slice(at);
}

/**
 * The matches of the global pattern `re` in `text`, in order: `String.matchAll` without the copy of
 * the pattern it makes on each call, which costs more than the search itself on most texts.
 */
export function matchesOf(re: RegExp, text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    found.push(m);
    if (m[0] === '') re.lastIndex++;
  }
  return found;
}
