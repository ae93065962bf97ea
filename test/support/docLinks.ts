// What the docs point at, read out of their text, so a test can check every pointer still leads
// somewhere: file paths into the repository, "docs/<file>.md, <Section>" citations in code
// comments, and Markdown links with an anchor.
import fs from 'node:fs';
import path from 'node:path';

/** A pointer that leads nowhere, for the failure message. */
export interface DeadPointer {
  readonly file: string;
  readonly line: number;
  readonly target: string;
}

/** Top folders of the repository whose paths the docs name. */
const REPO_PATH = /(?<![\w./@-])((?:src|media|test|scripts|bench)\/[A-Za-z0-9_./-]*[A-Za-z0-9_/-])/g;
/** A file named without its folder, as the concept table does after a full path (`session.ts`, `events.ts`). */
const BARE_FILE = /^[A-Za-z0-9_.-]+\.(?:ts|mjs|css)$/;

/**
 * Paths into the repository that `markdown` names and `exists` does not find: every
 * `src/`, `media/`, `test/`, `scripts/` or `bench/` path (patterns with `*` or `<...>` are not
 * paths), and every file named bare in backticks after a full path on the same line, which is
 * read as a file in that path's folder.
 */
export function deadPaths(file: string, markdown: string, exists: (repoPath: string) => boolean): DeadPointer[] {
  const dead: DeadPointer[] = [];
  markdown.split('\n').forEach((text, i) => {
    const line = i + 1;
    for (const m of text.matchAll(REPO_PATH)) {
      const after = text[m.index + m[0].length];
      if (after === '*' || after === '<') continue;
      if (!exists(m[1]!)) dead.push({ file, line, target: m[1]! });
    }
    let folder: string | undefined;
    for (const m of text.matchAll(/`([^`]+)`/g)) {
      const span = m[1]!;
      if (new RegExp(`^${REPO_PATH.source}$`).test(span)) folder = span.endsWith('/') ? span : path.posix.dirname(span);
      else if (folder && BARE_FILE.test(span) && !exists(path.posix.join(folder, span)))
        dead.push({ file, line, target: `${span} (read as ${path.posix.join(folder, span)})` });
    }
  });
  return dead;
}

/** A doc's section headings (`##` and deeper), each also by its name before a colon ("Compaction: long sessions ..." is "Compaction" too). */
export function headings(markdown: string): string[] {
  const names: string[] = [];
  for (const m of markdown.matchAll(/^#{2,6}\s+(.+?)\s*$/gm)) {
    names.push(m[1]!);
    const colon = m[1]!.indexOf(':');
    if (colon > 0) names.push(m[1]!.slice(0, colon));
  }
  return names;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * Citations such as "docs/reference.md, Stream frames" or "docs/reference.md (Wire records)"
 * whose section `sectionsOf` does not list (undefined: no such doc). A comment's line breaks and
 * comment markers are read as spaces; a citation may go on after its section with a comma
 * ("Turns and prompts, the run, then ...").
 */
export function deadCitations(file: string, text: string, sectionsOf: (doc: string) => string[] | undefined): DeadPointer[] {
  const dead: DeadPointer[] = [];
  for (const m of text.matchAll(/docs\/([\w-]+\.md)(?:,[ \t]*|[ \t]+\()/g)) {
    const rest = text.slice(m.index + m[0].length, m.index + m[0].length + 200).replace(/[ \t]*\n[ \t]*(?:\/\/|\*(?!\/)|#)?[ \t]*/g, ' ');
    const cited = /^[^).:;`\n]*/.exec(rest)![0].trim();
    if (!/^[A-Z]/.test(cited)) continue; // "docs/architecture.md first": not a citation of a section
    const sections = sectionsOf(m[1]!);
    const ok = sections?.some((s) => cited === s || cited.startsWith(`${s},`));
    if (!ok) dead.push({ file, line: text.slice(0, m.index).split('\n').length, target: `docs/${m[1]}, ${cited}` });
  }
  return dead;
}

/** Relative Markdown links (`[text](reference.md#stream-frames)`) to a file that is not there, or to an anchor no heading has. */
export function deadLinks(file: string, markdown: string, readDoc: (relativeToRepo: string) => string | undefined): DeadPointer[] {
  const dead: DeadPointer[] = [];
  for (const m of markdown.matchAll(/\]\(([^)\s#]*\.md)(?:#([^)\s]+))?\)/g)) {
    if (/^[a-z]+:/.test(m[1]!)) continue; // a web address
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!));
    const doc = readDoc(target);
    const anchorOk = m[2] === undefined || (doc !== undefined && headings(doc).some((h) => anchorOf(h) === m[2]));
    if (doc === undefined || !anchorOk) dead.push({ file, line: markdown.slice(0, m.index).split('\n').length, target: m[0].slice(2, -1) });
  }
  return dead;
}

/** Every file under `dir` (relative to `root`) whose name ends with one of `suffixes`. */
export function filesUnder(root: string, dir: string, suffixes: readonly string[]): string[] {
  const full = path.join(root, dir);
  if (!fs.existsSync(full)) return [];
  const found: string[] = [];
  for (const entry of fs.readdirSync(full, { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(root, rel, suffixes));
    else if (suffixes.some((s) => entry.name.endsWith(s))) found.push(rel);
  }
  return found.sort();
}
