import fs from 'node:fs';
import { repoFacts } from '../git/repoFacts';
import type { SessionToPush } from './push';

const GIT_TIMEOUT_MS = 10_000;

/**
 * The first commit of the repository `dir` is in: what a push names a session's project by, and
 * what a pull matches it against. Undefined outside a repository, before its first commit, or for
 * a folder that is gone. Asked of the hardened git, its answer cached with the repository's facts.
 */
export async function projectRoot(dir: string): Promise<string | undefined> {
  if (!fs.existsSync(dir)) return undefined;
  const facts = await repoFacts(dir, { timeoutMs: GIT_TIMEOUT_MS, rootCommit: true });
  return facts?.facts.tree?.rootCommit ?? undefined;
}

/** The first commits of the workspace folders of `sessions` that carry none of their own (`identity`). */
export async function projectRootsOf(sessions: readonly SessionToPush[]): Promise<Map<string, string>> {
  const roots = new Map<string, string>();
  for (const dir of new Set(sessions.filter((s) => !s.state.identity).map((s) => s.state.workspaceDir))) {
    const root = await projectRoot(dir);
    if (root) roots.set(dir, root);
  }
  return roots;
}
