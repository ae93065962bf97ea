import fs from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/**
 * Walks the files under `start` (inside `root`), skipping `.git` and whatever the .gitignore
 * files on the way ignore, as git would. Yields paths relative to `root`, with `/` separators.
 */
export function* walkFiles(root: string, start: string, options: { includeDirs?: boolean } = {}): Generator<string> {
  const rules: Array<{ base: string; ig: Ignore }> = [];
  // .gitignore files above the start folder (up to the root) apply too.
  for (let dir = start; ; dir = path.dirname(dir)) {
    const rel = path.relative(root, dir);
    if (rel.startsWith('..')) break;
    const ig = readGitignore(dir);
    if (ig) rules.push({ base: dir, ig });
    if (dir === root || path.dirname(dir) === dir) break;
  }
  yield* walk(root, start, rules, options.includeDirs ?? false);
}

function readGitignore(dir: string): Ignore | undefined {
  try {
    return ignore().add(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'));
  } catch {
    return undefined;
  }
}

function isIgnored(full: string, isDir: boolean, rules: Array<{ base: string; ig: Ignore }>): boolean {
  for (const { base, ig } of rules) {
    const rel = path.relative(base, full).split(path.sep).join('/');
    if (!rel || rel.startsWith('..')) continue;
    if (ig.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

function* walk(root: string, dir: string, rules: Array<{ base: string; ig: Ignore }>, includeDirs: boolean): Generator<string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  const local = readGitignore(dir);
  const here = local && !rules.some((r) => r.base === dir) ? [...rules, { base: dir, ig: local }] : rules;
  for (const entry of entries) {
    if (entry.name === '.git') continue;
    const full = path.join(dir, entry.name);
    const isDir = entry.isDirectory();
    if (isIgnored(full, isDir, here)) continue;
    const rel = path.relative(root, full).split(path.sep).join('/');
    if (isDir) {
      if (includeDirs) yield `${rel}/`;
      yield* walk(root, full, here, includeDirs);
    } else if (entry.isFile()) {
      yield rel;
    }
  }
}
