import { SafeGit } from '../git/safeGit';
import { NO_REPOSITORY, repoFingerprint } from '../git/repoFingerprint';
import { findExecutable } from '../process/executable';

/** A remote address without the user name and password some embed in it. */
function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

/** What git said of a repository that does not depend on its work tree: they change only with the repository's fingerprint. */
interface RepoFacts {
  readonly filterDrivers: readonly string[];
  /** Undefined when the folder is not inside a work tree. */
  readonly tree?: { readonly origin?: string; readonly branch?: string; readonly log?: string };
}

interface Remembered {
  readonly fingerprint: string;
  readonly facts: RepoFacts;
}

/** The facts of the last few folders asked about, by git executable and folder. */
const remembered = new Map<string, Remembered>();
const REMEMBERED_FOLDERS = 16;

/**
 * Git context: origin, branch, short status (at most 20 files), last 3 commits; nothing outside a
 * repository. git runs through {@link SafeGit}, so nothing the repository configures executes;
 * the caller asks only in a trusted workspace.
 *
 * The status is asked every time (one git process): the work tree changes without anything in
 * `.git` changing. The rest is asked again only when the repository's fingerprint (HEAD, refs,
 * configuration: src/core/git/repoFingerprint.ts) changed since the last time, and not at all
 * outside a repository.
 */
export async function gitContext(workspaceDir: string, timeoutMs = 5_000): Promise<string | undefined> {
  const executable = findExecutable('git');
  if (!executable) return undefined;
  const fingerprint = repoFingerprint(workspaceDir);
  if (fingerprint === NO_REPOSITORY) return undefined;
  const key = `${executable}\0${workspaceDir}`;
  const known = remembered.get(key);
  if (fingerprint !== undefined && known?.fingerprint === fingerprint) {
    const { filterDrivers, tree } = known.facts;
    return tree && describe(tree, await status(SafeGit.withFilterDrivers(executable, workspaceDir, filterDrivers, timeoutMs)));
  }
  const git = await SafeGit.open(workspaceDir, timeoutMs, executable);
  if (!git) return undefined;
  const inside = await git.output(['rev-parse', '--is-inside-work-tree']);
  if (inside?.trim() !== 'true') {
    remember(key, fingerprint, { filterDrivers: git.filterDrivers });
    return undefined;
  }
  const [tree, now] = await Promise.all([treeFacts(git), status(git)]);
  remember(key, fingerprint, { filterDrivers: git.filterDrivers, tree });
  return describe(tree, now);
}

/** The work tree's short status. */
async function status(git: SafeGit): Promise<string | undefined> {
  return (await git.output(['status', '--short', '--ignore-submodules=all']))?.trimEnd();
}

/** Origin, branch and the last commits of the repository around `git`'s folder. */
async function treeFacts(git: SafeGit): Promise<NonNullable<RepoFacts['tree']>> {
  const [origin, branch, log] = (
    await Promise.all([
      git.output(['remote', 'get-url', 'origin']),
      git.output(['branch', '--show-current']),
      git.output(['log', '-3', '--oneline', '--no-decorate', '--no-show-signature', '--no-ext-diff', '--no-textconv']),
    ])
  ).map((out) => out?.trimEnd());
  return { origin, branch, log };
}

/** Keeps `facts` for the next turn, when the fingerprint could tell that nothing they depend on changed. */
function remember(key: string, fingerprint: string | undefined, facts: RepoFacts): void {
  remembered.delete(key);
  if (fingerprint === undefined) return;
  remembered.set(key, { fingerprint, facts });
  if (remembered.size > REMEMBERED_FOLDERS) remembered.delete(remembered.keys().next().value!);
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
