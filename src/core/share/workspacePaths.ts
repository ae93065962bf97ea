import { matchesOf, type Cut } from './redaction';

// Absolute paths made relative before a session leaves the machine: a path inside a workspace
// folder becomes relative to it (`.` for the folder itself), one under the home folder `~/...`.
// A folder is matched only as a whole path: not inside a word or a longer path (`/home/ab` is not
// under `/home/a`, nor `/mnt/home/a/x`), and a `file://` URL of such a path goes with it.

/** What may come right after a folder's path when it ends there: a separator, the text's end, or a character no file name here holds. */
const AFTER = `(?=[\\/\\\\]|$|[\\s"'\`:,;|<>()\\[\\]{}*?]|\\.(?:$|[\\s"'\`:,;|<>()\\[\\]{}]))`;

/** The rest of a path after its folder: up to white space, a quote, `:` (`file.ts:12`), or a bracket. */
const TAIL = /[^\s"'`:,;|<>()[\]{}*?]*/y;

/** How long a sample of a rewritten path may be. */
const SAMPLE_LENGTH = 120;

interface Prefix {
  readonly path: string;
  readonly home: boolean;
  readonly windows: boolean;
}

/** Rewrites the absolute paths of texts under `folders` (longest first) and `home`. */
export class PathRewriter {
  private readonly prefixes: readonly Prefix[];
  private readonly re: RegExp | null;
  /** The length of the shortest path rewritten: a shorter text holds none. */
  readonly shortest: number;

  constructor(folders: readonly string[], home: string) {
    const prefixes = new Map<string, Prefix>();
    for (const [path, isHome] of [...folders.map((f) => [f, false] as const), [home, true] as const]) {
      const p = trimmed(path);
      if (p && !prefixes.has(p)) prefixes.set(p, { path: p, home: isHome, windows: /^[A-Za-z]:[\\/]/.test(p) });
    }
    this.prefixes = [...prefixes.values()].sort((a, b) => b.path.length - a.path.length || Number(a.home) - Number(b.home));
    this.shortest = Math.min(...this.prefixes.map((p) => p.path.length));
    const alternatives = this.prefixes.map((p) => `(${p.windows ? windowsPattern(p.path) : escaped(p.path)})`);
    this.re = alternatives.length ? new RegExp(`(?:file:\\/\\/\\/?|(?<![\\w.~/\\\\-]))(?:${alternatives.join('|')})${AFTER}`, 'g') : null;
  }

  /** The rewrites of `text`'s paths, in order. */
  cuts(text: string): Cut[] {
    if (!this.re || text.length < this.shortest || !this.prefixes.some((p) => p.windows || text.includes(p.path))) return [];
    const cuts: Cut[] = [];
    for (const m of matchesOf(this.re, text)) {
      const prefix = this.prefixes[m.findIndex((group, i) => i > 0 && group !== undefined) - 1]!;
      cuts.push(this.rewrite(text, m.index, m.index + m[0].length, prefix));
    }
    return cuts;
  }

  /** The cut for a path whose folder `prefix` spans `[start, end)` of `text`. */
  private rewrite(text: string, start: number, end: number, prefix: Prefix): Cut {
    let rest = end;
    while (text[rest] === '/' || (prefix.windows && text[rest] === '\\')) rest++;
    TAIL.lastIndex = rest;
    const tail = TAIL.exec(text)![0];
    if (rest === end || tail === '') {
      const by = prefix.home ? '~' : '.';
      return { start, end, by, kind: 'path', sample: by };
    }
    const lead = prefix.home ? '~/' : '';
    if (prefix.windows) {
      const by = lead + tail.replace(/\\/g, '/');
      return { start, end: rest + tail.length, by, kind: 'path', sample: cutShort(by) };
    }
    return { start, end: rest, by: lead, kind: 'path', sample: cutShort(lead + tail) };
  }
}

/** A folder's path without trailing separators; null for none or a file system's root (everything is under it). */
function trimmed(path: string): string | null {
  const p = path.replace(/[\\/]+$/, '');
  return p === '' || /^[A-Za-z]:$/.test(p) ? null : p;
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A Windows path as a pattern: letters in either case, `\` or `/` between folders. */
function windowsPattern(path: string): string {
  return [...path].map((c) => (c === '\\' || c === '/' ? '[\\\\/]' : /[A-Za-z]/.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escaped(c))).join('');
}

/** A rewritten path as a sample shows it: without a sentence's full stop, at most {@link SAMPLE_LENGTH} characters. */
function cutShort(path: string): string {
  const p = path.replace(/\.$/, '');
  return p.length > SAMPLE_LENGTH ? `${p.slice(0, SAMPLE_LENGTH)}…` : p;
}
