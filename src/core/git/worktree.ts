import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeFolders } from '../fs/folders';
import { repoFacts } from './repoFacts';
import { SafeGit, type GitRun } from './safeGit';

/**
 * Configuration set for the git commands that change a repository (worktree add and remove, merge,
 * cherry-pick, branch), on top of SafeGit's overrides: no signing program, no submodule recursion
 * (its checkout could reach for a remote), no automatic garbage collection in the background.
 */
const WRITING = ['commit.gpgSign=false', 'tag.gpgSign=false', 'merge.verifySignatures=false', 'submodule.recurse=false', 'gc.auto=0'];

const GIT_TIMEOUT_MS = 60_000;

/** git refused or could not do what was asked; the message says what and what to do. */
export class WorktreeError extends Error {
  override readonly name: string = 'WorktreeError';
}

/** A folder that is not inside a git work tree, so it has no worktree to fork into. */
export class NotARepositoryError extends WorktreeError {
  override readonly name = 'NotARepositoryError';
}

/** What a fork into a worktree needs to know of the repository around a folder. */
export interface RepositoryFacts {
  readonly git: SafeGit;
  /** The work tree's top folder (real path). */
  readonly top: string;
  /** The folder asked about, relative to `top` ('' for the top itself). */
  readonly subdir: string;
  /** The commit HEAD names. */
  readonly head: string;
  /** Uncommitted changes of the checkout, as `git status --porcelain` lines (untracked files included). */
  readonly uncommitted: readonly string[];
  /** The paths of the submodules the repository declares (a new worktree has them empty). */
  readonly submodules: readonly string[];
}

/** The last line git wrote to stderr, for a one-sentence error. */
export function gitReason(run: GitRun): string {
  const lines = run.stderr.split('\n').map((l) => l.replace(/^(fatal|error): /, '').trim());
  return lines.filter(Boolean).pop() ?? (run.code === null ? 'git could not be run or took too long' : `git exited with code ${run.code}`);
}

/** The repository around `dir`, through a git that runs nothing the repository configures. */
export async function repositoryOf(dir: string): Promise<RepositoryFacts> {
  const git = await SafeGit.open(dir, GIT_TIMEOUT_MS);
  if (!git) throw new WorktreeError('git is not installed (or not on PATH), so Braid cannot make a worktree; fork without a worktree instead');
  const top = (await git.output(['rev-parse', '--show-toplevel']))?.trim();
  if (!top) throw new NotARepositoryError(`${dir} is not in a git repository, so there is no worktree to fork into; a plain fork works anywhere`);
  const head = (await git.output(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']))?.trim();
  if (!head) throw new WorktreeError(`the repository at ${top} has no commit yet, so a worktree has nothing to start from; commit once first`);
  const realTop = fs.realpathSync(top);
  const status = (await git.output(['status', '--porcelain=v1', '-z', '--ignore-submodules=all', '--untracked-files=all'])) ?? '';
  const submodules = (await git.in(realTop).output(['config', '--file', '.gitmodules', '-z', '--get-regexp', '^submodule\\..*\\.path$'])) ?? '';
  return {
    git: git.in(realTop),
    top: realTop,
    subdir: path.relative(realTop, fs.realpathSync(dir)),
    head,
    uncommitted: porcelainEntries(status),
    submodules: submodules
      .split('\0')
      .filter(Boolean)
      .map((entry) => entry.slice(entry.indexOf('\n') + 1)),
  };
}

/** `status --porcelain -z` as one line per entry ("XY path"; a rename's source path dropped). */
function porcelainEntries(z: string): string[] {
  const parts = z.split('\0');
  const entries: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (!entry) continue;
    entries.push(entry);
    if (entry[0] === 'R' || entry[0] === 'C') i++; // the next part is the rename's source
  }
  return entries;
}

/** Whether `name` is a branch name git accepts, and whether a branch has it already. */
export async function branchState(git: SafeGit, name: string): Promise<'invalid' | 'taken' | 'free'> {
  const valid = await git.exec(['check-ref-format', '--branch', name]);
  if (valid.code !== 0 || name.startsWith('-')) return 'invalid';
  const exists = await git.exec(['show-ref', '--verify', '--quiet', `refs/heads/${name}`]);
  return exists.code === 0 ? 'taken' : 'free';
}

/**
 * Adds a worktree at `folder` on a new branch `branch` from `base`, or on the existing `branch`
 * when `base` is undefined. A failed add leaves nothing behind: not the folders made for it, nor
 * the new branch (git can make it before it fails to make the folder).
 */
export async function addWorktree(git: SafeGit, folder: string, branch: string, base: string | undefined): Promise<void> {
  const newBranch = base !== undefined && (await branchState(git, branch)) === 'free';
  const folderWas = fs.existsSync(folder);
  const made = makeFolders(path.dirname(folder)); // the first folder it made, if any
  const args = base === undefined ? ['worktree', 'add', folder, branch] : ['worktree', 'add', '-b', branch, folder, base];
  const run = await git.exec(args, WRITING);
  if (run.code === 0) return;
  if (!folderWas) fs.rmSync(folder, { recursive: true, force: true });
  if (made) fs.rmSync(made, { recursive: true, force: true });
  await pruneWorktrees(git);
  if (newBranch && (await branchState(git, branch)) === 'taken') await git.exec(['branch', '-D', branch], WRITING);
  throw new WorktreeError(`git could not add the worktree at ${folder}: ${gitReason(run)}`);
}

/** Forgets worktrees whose folder is gone (a folder deleted by hand), so one can be added there again. */
export async function pruneWorktrees(git: SafeGit): Promise<void> {
  await git.exec(['worktree', 'prune'], WRITING);
}

/** The uncommitted changes of a work tree, as `status --porcelain` entries (empty: clean). */
export async function uncommittedIn(git: SafeGit, folder: string): Promise<string[]> {
  const run = await git.in(folder).exec(['status', '--porcelain=v1', '-z', '--ignore-submodules=all', '--untracked-files=all']);
  if (run.code !== 0) throw new WorktreeError(`git could not read the state of ${folder}: ${gitReason(run)}`);
  return porcelainEntries(run.stdout);
}

/**
 * Carries the checkout's uncommitted changes into a new worktree: the tracked files' changes as
 * a binary patch applied there, the untracked (not ignored) files copied. Returns the paths carried.
 */
export async function carryChanges(repo: RepositoryFacts, worktree: string): Promise<string[]> {
  const diff = await repo.git.exec(['diff', '--binary', '--no-ext-diff', '--no-textconv', 'HEAD']);
  if (diff.code !== 0) throw new WorktreeError(`git could not read the uncommitted changes: ${gitReason(diff)}`);
  if (diff.stdout.length >= 256 * 1024)
    throw new WorktreeError('the uncommitted changes are too large to carry as a patch (256 KiB or more); commit or stash them first');
  if (diff.stdout) {
    const patch = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'braid-carry-')), 'changes.patch');
    fs.writeFileSync(patch, diff.stdout);
    try {
      const applied = await repo.git.in(worktree).exec(['apply', '--binary', patch], WRITING);
      if (applied.code !== 0) throw new WorktreeError(`the uncommitted changes did not apply in the worktree: ${gitReason(applied)}`);
    } finally {
      fs.rmSync(path.dirname(patch), { recursive: true, force: true });
    }
  }
  const untracked = ((await repo.git.output(['ls-files', '--others', '--exclude-standard', '-z'])) ?? '').split('\0').filter(Boolean);
  for (const rel of untracked) {
    const from = path.join(repo.top, rel);
    if (!fs.lstatSync(from, { throwIfNoEntry: false })?.isFile()) continue; // links, FIFOs: not carried
    fs.mkdirSync(path.dirname(path.join(worktree, rel)), { recursive: true });
    fs.copyFileSync(from, path.join(worktree, rel));
  }
  return repo.uncommitted.map((entry) => entry.slice(3));
}

/** The merge drivers the configuration names: programs a merge would run, so Braid does not merge then. */
async function mergeDrivers(git: SafeGit): Promise<string[]> {
  const run = await git.exec(['config', '-z', '--name-only', '--get-regexp', '^merge\\..*\\.driver$']);
  return run.code === 0 ? run.stdout.split('\0').filter(Boolean) : [];
}

/** An identity for the commits a merge or cherry-pick writes: the repository's, else the user's own git configuration. */
async function identity(git: SafeGit): Promise<string[]> {
  const own = await git.output(['config', 'user.email']);
  if (own?.trim()) return [];
  const home = os.homedir();
  const files = [path.join(process.env.XDG_CONFIG_HOME || path.join(home, '.config'), 'git', 'config'), path.join(home, '.gitconfig')];
  const config: string[] = [];
  for (const key of ['user.name', 'user.email']) {
    for (const file of files) {
      const value = fs.existsSync(file) ? (await git.output(['config', '--file', file, key]))?.trim() : undefined;
      if (value) {
        config.push(`${key}=${value}`);
        break;
      }
    }
  }
  return config;
}

/** How a worktree branch comes back into the checkout. */
export type FinishMethod = 'merge' | 'cherry-pick';

/**
 * Brings `branch` into the checkout at `top`: a merge (fast-forward when it can), or its commits
 * since `base` cherry-picked. A conflict is aborted, leaving the checkout as it was. Returns how
 * many commits the branch had.
 */
export async function bringBack(git: SafeGit, method: FinishMethod, branch: string, base: string): Promise<number> {
  const drivers = await mergeDrivers(git);
  if (drivers.length)
    throw new WorktreeError(`the repository configures merge drivers (${drivers.join(', ')}), programs Braid does not run; merge ${branch} yourself`);
  const count = Number((await git.output(['rev-list', '--count', `${base}..${branch}`]))?.trim() ?? 'NaN');
  if (!Number.isFinite(count)) throw new WorktreeError(`git could not read the commits of ${branch}`);
  if (count === 0) return 0;
  const who = await identity(git);
  const args = method === 'merge' ? ['merge', '--no-edit', '--no-verify', branch] : ['cherry-pick', '--allow-empty', `${base}..${branch}`];
  const run = await git.exec(args, [...who, ...WRITING]);
  if (run.code !== 0) {
    await git.exec([method, '--abort'], WRITING);
    const why = `${run.stdout}\n${run.stderr}`.includes('CONFLICT') ? 'they conflict with the checkout' : gitReason(run);
    throw new WorktreeError(`git could not ${method} ${branch} into ${git.folder}: ${why}; nothing was changed, and the worktree is kept`);
  }
  return count;
}

/** Removes a worktree (its folder) and, when asked, its branch. */
export async function removeWorktree(git: SafeGit, folder: string, branch: string, deleteBranch: boolean): Promise<void> {
  if (fs.existsSync(folder)) {
    const run = await git.exec(['worktree', 'remove', folder], WRITING);
    if (run.code !== 0) throw new WorktreeError(`git could not remove the worktree at ${folder}: ${gitReason(run)}`);
  } else await pruneWorktrees(git);
  if (!deleteBranch) return;
  const run = await git.exec(['branch', '-D', branch], WRITING);
  if (run.code !== 0) throw new WorktreeError(`the worktree is removed, but git could not delete branch ${branch}: ${gitReason(run)}`);
}

/** The files that differ between two commits (`base` and a branch), as paths of the repository. */
export async function changedFiles(git: SafeGit, base: string, branch: string): Promise<string[]> {
  const run = await git.exec(['diff', '--name-only', '-z', '--no-ext-diff', '--no-textconv', '--no-renames', base, branch]);
  if (run.code !== 0) throw new WorktreeError(`git could not compare ${branch} with the commit it started from: ${gitReason(run)}`);
  return run.stdout.split('\0').filter(Boolean);
}

/** A file's content at a commit ('' when it has none there: added or deleted). */
export async function fileAt(git: SafeGit, rev: string, file: string): Promise<string> {
  return (await git.output(['show', '--no-textconv', `${rev}:${file}`])) ?? '';
}

/**
 * What the repository around `dir` is wherever it lives (origin and first commit), or undefined
 * outside one: the repository's facts (repoFacts.ts), read through `factsFile` when given.
 */
export async function identityOf(dir: string, factsFile?: string): Promise<{ remote?: string; rootCommit: string } | undefined> {
  const tree = (await repoFacts(dir, { timeoutMs: 5_000, rootCommit: true, ...(factsFile ? { factsFile } : {}) }))?.facts.tree;
  if (!tree?.rootCommit) return undefined;
  return { rootCommit: tree.rootCommit, ...(tree.origin?.trim() ? { remote: tree.origin.trim() } : {}) };
}
