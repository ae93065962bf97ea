import fs from 'node:fs';
import { readHead } from '../git/headCommit';
import { madeCommits, type MadeCommit } from '../git/madeCommits';
import { repoFacts, type RepoFacts } from '../git/repoFacts';
import type { SafeGit } from '../git/safeGit';

/** A remote address without the user name and password some embed in it. */
function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

/**
 * Git context: origin, branch, short status (at most 20 files), last 3 commits; nothing outside a
 * repository. git runs through {@link SafeGit}, so nothing the repository configures executes;
 * the caller asks only in a trusted workspace.
 *
 * The status is asked every time (one git process): the work tree changes without anything in
 * `.git` changing. The rest are the repository's facts (src/core/git/repoFacts.ts), asked again
 * only when its fingerprint changed since the last time, in this process or, through
 * `factsFile`, in an earlier one; not at all outside a repository.
 */
export async function gitContext(workspaceDir: string, options: { timeoutMs?: number; factsFile?: string } = {}): Promise<string | undefined> {
  return (await workspaceGit(workspaceDir, options))?.context();
}

/** The work tree around a workspace folder as a turn begins: its branch, and the git context when asked for. */
export interface WorkspaceGit {
  /** The branch checked out; undefined on a detached HEAD (or when git did not say). */
  readonly branch: string | undefined;
  /** The git context as the model reads it: asks git for the status (one process). */
  context(): Promise<string>;
  /**
   * The commits made since the turn began (at `sinceMs`), when HEAD moved since this was read:
   * none, and no git process, while it did not. The work tree's top comes with them, for their paths.
   */
  madeSince(sinceMs: number): Promise<{ root: string; commits: MadeCommit[] } | undefined>;
}

/**
 * The repository's facts around `workspaceDir` (no git process while its fingerprint is
 * unchanged: see {@link gitContext}), read once for a turn: the branch goes in its turn_begin,
 * the context in its user message. Undefined outside a work tree.
 */
export async function workspaceGit(workspaceDir: string, options: { timeoutMs?: number; factsFile?: string } = {}): Promise<WorkspaceGit | undefined> {
  const repo = await repoFacts(workspaceDir, { timeoutMs: options.timeoutMs ?? 5_000, ...(options.factsFile ? { factsFile: options.factsFile } : {}) });
  const tree = repo?.facts.tree;
  if (!repo || !tree) return undefined;
  const branch = typeof tree.branch === 'string' && tree.branch ? tree.branch : undefined; // git-facts.json is a cache another process wrote
  const head = readHead(workspaceDir); // HEAD as the turn begins, from .git (no git process)
  return {
    branch,
    context: async () => describe(tree, await status(repo.git)),
    madeSince: async (sinceMs) => {
      const now = head && readHead(workspaceDir);
      if (!now?.commit || now.commit === head?.commit || now.top !== head?.top) return undefined;
      const commits = await madeCommits(repo.git, head.commit, now.commit, sinceMs);
      if (!commits) throw new Error('git log failed, or printed what Braid does not read');
      return commits.length ? { root: realPath(now.top), commits } : undefined;
    },
  };
}

/** `dir` with its links resolved, as `file_change` records name a workspace folder; itself when that fails. */
function realPath(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}

/** The work tree's short status. */
async function status(git: SafeGit): Promise<string | undefined> {
  return (await git.output(['status', '--short', '--ignore-submodules=all']))?.trimEnd();
}

/** The context as the model reads it. */
function describe(tree: NonNullable<RepoFacts['tree']>, shortStatus: string | undefined): string {
  const statusLines = (shortStatus ?? '').split('\n').filter(Boolean);
  const shown = statusLines.slice(0, 20).join('\n') + (statusLines.length > 20 ? `\n(${statusLines.length - 20} more files)` : '');
  return [
    'Git context of the workspace:',
    `origin: ${tree.origin ? withoutCredentials(tree.origin) : '(none)'}`,
    `branch: ${tree.branch || '(detached)'}`,
    `status:\n${shown || '(clean)'}`,
    `recent commits:\n${tree.log || '(none)'}`,
  ].join('\n');
}
