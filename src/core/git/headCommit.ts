import path from 'node:path';
import { lstat, readSmall } from './gitFiles';

/** Where HEAD is, read from `.git` without starting git. */
export interface Head {
  /** The folder `.git` is in: the top of the work tree, which a commit's paths are relative to. */
  readonly top: string;
  /** The commit HEAD is at; null before the first commit (an unborn branch). */
  readonly commit: string | null;
}

/** packed-refs is read for HEAD's branch only up to this size; a larger one is left to git. */
const MAX_PACKED_REFS = 8 * 1024 * 1024;

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Whether `x` is a commit id git could have written (a SHA-1 or SHA-256, in hex). */
export function isCommitId(x: unknown): x is string {
  return typeof x === 'string' && OBJECT_ID.test(x);
}

/**
 * HEAD of the repository around `dir`, from the files git keeps it in: `.git` (a folder, or a
 * file naming one, as in a linked worktree), HEAD, the branch's ref, packed-refs. Undefined when
 * there is no repository or the layout is one this does not read (a reftable, a symbolic ref of a
 * symbolic ref, a link where a file should be): then ask git.
 *
 * The repository is not trusted: files are read as {@link readSmall} reads them, and a ref name
 * must be a plain path under `refs/heads/`.
 */
export function readHead(dir: string): Head | undefined {
  const found = findGit(path.resolve(dir));
  if (!found) return undefined;
  const { top, gitDir, commonDir } = found;
  if (lstat(path.join(commonDir, 'reftable'))) return undefined;
  const head = readSmall(path.join(gitDir, 'HEAD'))?.trim();
  if (head === undefined) return undefined;
  if (isCommitId(head)) return { top, commit: head }; // detached
  const ref = /^ref: (refs\/heads\/.+)$/.exec(head)?.[1];
  if (!ref || ref.split('/').some((p) => p === '' || p === '.' || p === '..' || p.includes('\0'))) return undefined;
  const commit = branchCommit(commonDir, ref);
  return commit === undefined ? undefined : { top, commit };
}

/** The commit `ref` names in `commonDir`: its loose file, else its line of packed-refs; null when neither has it. */
function branchCommit(commonDir: string, ref: string): string | null | undefined {
  const loose = path.join(commonDir, ...ref.split('/'));
  if (lstat(loose)) {
    const id = readSmall(loose)?.trim();
    return id !== undefined && isCommitId(id) ? id : undefined;
  }
  const packedFile = path.join(commonDir, 'packed-refs');
  if (!lstat(packedFile)) return null;
  const packed = readSmall(packedFile, MAX_PACKED_REFS);
  if (packed === undefined) return undefined;
  for (const line of packed.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && line.slice(space + 1).trimEnd() === ref) {
      const id = line.slice(0, space);
      return isCommitId(id) ? id : undefined;
    }
  }
  return null;
}

/** The `.git` git would find from `dir`: its work tree's top, HEAD's folder and the folder of the shared refs. */
function findGit(dir: string): { top: string; gitDir: string; commonDir: string } | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    const candidate = path.join(at, '.git');
    const stat = lstat(candidate);
    if (stat?.isDirectory()) return { top: at, gitDir: candidate, commonDir: candidate };
    if (stat?.isFile()) return linkedGit(at, candidate);
    if (stat || path.dirname(at) === at) return undefined;
  }
}

/** A `.git` file (`gitdir: <folder>`): a linked worktree's folder, whose `commondir` names the shared one. */
function linkedGit(top: string, file: string): { top: string; gitDir: string; commonDir: string } | undefined {
  const named = /^gitdir: (.+)$/m.exec(readSmall(file) ?? '')?.[1]?.trim();
  if (!named) return undefined;
  const gitDir = path.resolve(top, named);
  if (!lstat(gitDir)?.isDirectory()) return undefined;
  const common = readSmall(path.join(gitDir, 'commondir'))?.trim();
  const commonDir = common ? path.resolve(gitDir, common) : gitDir;
  return lstat(commonDir)?.isDirectory() ? { top, gitDir, commonDir } : undefined;
}
