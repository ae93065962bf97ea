// The `@` list's fuzzy match: a glob VS Code's file search takes, and the local ranking of what
// it found. No vscode import (unit-tested).

/** The characters a query keeps: others cannot be told apart in a glob and are dropped. */
const PLAIN = /[a-zA-Z0-9._-]/;

/**
 * A case-insensitive subsequence glob for the name a query ends with: "rdme" gives
 * `**∕*[rR]*[dD]*[mM]*[eE]*`. Undefined when the query keeps no character.
 */
export function subsequenceGlob(query: string): string | undefined {
  const name = query.split('/').pop() ?? '';
  const chars = [...name].filter((c) => PLAIN.test(c));
  if (chars.length === 0) return undefined;
  const parts = chars.map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`));
  return `**/*${parts.join('*')}*`;
}

/**
 * How well `candidate` (a '/' path) matches `query` as a subsequence, higher is better, or
 * undefined when it does not. Matches in the file name, at word starts and in a row count most;
 * shorter paths win ties.
 */
export function matchScore(query: string, candidate: string): number | undefined {
  const q = query.toLowerCase().replace(/\s+/g, '');
  const c = candidate.toLowerCase();
  if (q === '') return -candidate.length;
  const nameStart = c.lastIndexOf('/') + 1;
  let score = 0;
  let at = 0;
  let previous = -2;
  for (const ch of q) {
    const found = c.indexOf(ch, at);
    if (found < 0) return undefined;
    if (found >= nameStart) score += 2;
    if (found === previous + 1) score += 3;
    if (found === 0 || '/._-'.includes(c[found - 1]!)) score += 2;
    previous = found;
    at = found + 1;
  }
  if (c.slice(nameStart).startsWith(q)) score += 10;
  return score * 100 - candidate.length;
}

/** The candidates that match, best first, at most `limit`. */
export function rankMatches<T>(query: string, candidates: readonly T[], pathOf: (item: T) => string, limit: number): T[] {
  const scored: { item: T; score: number }[] = [];
  for (const item of candidates) {
    const score = matchScore(query, pathOf(item));
    if (score !== undefined) scored.push({ item, score });
  }
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, limit).map((s) => s.item);
}

/** What a file listing knows of ignored paths (a `.gitignore`'s): {@link IgnoredPaths} has this shape. */
export interface IgnoreList {
  has(path: string): boolean;
}

/**
 * Whether `query` asks for ignored files: it names a folder that is ignored (`node_modules/`,
 * `node_modules/rea`), or, for one ignored file, that file's whole name (`.env`).
 */
function asksForIgnored(query: string, path: string, ignored: IgnoreList): boolean {
  const slash = query.lastIndexOf('/');
  if (slash > 0 && ignored.has(query.slice(0, slash)) && path.toLowerCase().startsWith(query.slice(0, slash + 1).toLowerCase())) return true;
  return query.toLowerCase() === path.slice(path.lastIndexOf('/') + 1).toLowerCase();
}

/**
 * The files matching `query`, best first, at most `limit`: the files git tracks or could track,
 * then the ignored ones the query asks for (see {@link asksForIgnored}); other ignored files are
 * not listed.
 */
export function rankFiles(query: string, files: readonly string[], ignored: IgnoreList | undefined, limit: number): string[] {
  if (!ignored) return rankMatches(query, files, (p) => p, limit);
  const kept: string[] = [];
  const asked: string[] = [];
  for (const path of files) {
    if (!ignored.has(path)) kept.push(path);
    else if (asksForIgnored(query, path, ignored)) asked.push(path);
  }
  const best = rankMatches(query, kept, (p) => p, limit);
  return best.length < limit ? [...best, ...rankMatches(query, asked, (p) => p, limit - best.length)] : best;
}
