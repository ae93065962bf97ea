import fs from 'node:fs';
import path from 'node:path';
import { lstat, readSmall } from './gitFiles';

/**
 * What a folder's repository looks like to the parts of the git context that do not look at the
 * work tree (the filter drivers, origin, branch and the last commits), read from the files in
 * `.git` without starting git: equal fingerprints mean those answers are the same.
 *
 * - `none`: no `.git` in the folder or any folder above it, so git finds no repository (it is run
 *   with `safe.bareRepository=explicit`, so no bare repository is taken implicitly either).
 * - a key: the location of `.git`, its HEAD, the ref HEAD names, the configuration, and the stat
 *   of every file and folder that refs, replacements, notes and remotes are kept in.
 * - undefined: it cannot tell, and the caller asks git. So for a `.git` that is a file (a linked
 *   worktree, a submodule) or a link, a configuration that includes other files (they may be
 *   anywhere, the work tree included), a link or an oversized file where git keeps its state.
 *
 * The repository is not trusted: nothing here follows a link, reads a FIFO or device (a file is
 * opened non-blocking and checked to be regular before a byte is read), or reads a large file.
 */
export type RepoFingerprint = string | undefined;

/** No repository: {@link repoFingerprint} of a folder with no `.git` above it. */
export const NO_REPOSITORY = 'none';

/** Where git keeps what the cached answers depend on besides HEAD, its ref and the configuration: their stat is enough, as git replaces them by renaming. */
const STAT_ONLY = [
  'packed-refs',
  'reftable',
  'reftable/tables.list',
  'refs/replace',
  'refs/notes',
  'refs/notes/commits',
  'info/grafts',
  'shallow',
  'remotes',
  'branches',
  'objects/info/alternates',
];

/** The fingerprint of `dir`'s repository: see {@link RepoFingerprint}. */
export function repoFingerprint(dir: string): RepoFingerprint {
  const gitDir = findGitDir(path.resolve(dir));
  if (gitDir === null) return NO_REPOSITORY;
  if (gitDir === undefined) return undefined;
  try {
    return repoState(gitDir);
  } catch {
    return undefined; // a file changed kind or vanished while read: ask git
  }
}

/** The `.git` folder git would find from `dir`; null when there is none, undefined for a `.git` that is not a plain folder. */
function findGitDir(dir: string): string | null | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    const candidate = path.join(at, '.git');
    const stat = lstat(candidate);
    if (stat) return stat.isDirectory() ? candidate : undefined;
    if (path.dirname(at) === at) return null;
  }
}

function repoState(gitDir: string): RepoFingerprint {
  const real = fs.realpathSync(gitDir);
  const own = lstat(gitDir)!;
  if (lstat(path.join(gitDir, 'commondir'))) return undefined; // a linked worktree's folder, reached some other way
  const head = readSmall(path.join(gitDir, 'HEAD'));
  const config = readSmall(path.join(gitDir, 'config'));
  const worktreeConfig = lstat(path.join(gitDir, 'config.worktree')) ? readSmall(path.join(gitDir, 'config.worktree')) : '';
  if (head === undefined || config === undefined || worktreeConfig === undefined) return undefined;
  if (/include/i.test(config) || /include/i.test(worktreeConfig)) return undefined;
  const ref = headRef(real, head);
  if (ref === undefined) return undefined;
  const stats: string[] = [];
  for (const name of STAT_ONLY) {
    if (!linkFree(real, name)) return undefined;
    const stat = lstat(path.join(real, name));
    stats.push(stat ? `${name} ${statKey(stat)}` : `${name} -`);
  }
  // The folder's owner and identity: git refuses a repository another user owns.
  return JSON.stringify([real, `${own.uid} ${own.ino}`, head, ref, config, worktreeConfig, stats]);
}

/** The ref HEAD names, as `<name> <its content>` (`-` when it is packed or unborn); '' for a detached HEAD; undefined when it cannot be read safely. */
function headRef(realGitDir: string, head: string): string | undefined {
  const symbolic = /^ref: (.+)\n?$/.exec(head);
  if (!symbolic) return '';
  const name = symbolic[1]!;
  const parts = name.split('/');
  if (parts[0] !== 'refs' || parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\0'))) return undefined;
  if (!linkFree(realGitDir, name)) return undefined;
  const file = path.join(realGitDir, ...parts);
  if (!lstat(file)) return `${name} -`;
  const content = readSmall(file);
  if (content === undefined || content.startsWith('ref:')) return undefined; // a symbolic ref of a symbolic ref: ask git
  return `${name} ${content}`;
}

/** True when none of the folders on the way from `.git` to `relative` is a link (the last part is opened or stat'ed without following one). */
function linkFree(realGitDir: string, relative: string): boolean {
  const parts = relative.split('/').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const stat = lstat(path.join(realGitDir, ...parts.slice(0, i)));
    if (!stat) return true; // missing: nothing below it exists either
    if (!stat.isDirectory()) return false;
  }
  return true;
}

function statKey(stat: fs.Stats): string {
  return `${stat.mode} ${stat.ino} ${stat.size} ${stat.mtimeMs} ${stat.ctimeMs}`;
}
