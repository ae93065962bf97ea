import { SafeGit } from '../git/safeGit';

/** A remote address without the user name and password some embed in it. */
function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

/**
 * Git context: origin, branch, short status (at most 20 files), last 3 commits; nothing outside a
 * repository. git runs through {@link SafeGit}, so nothing the repository configures executes;
 * the caller asks only in a trusted workspace.
 */
export async function gitContext(workspaceDir: string, timeoutMs = 5_000): Promise<string | undefined> {
  const git = await SafeGit.open(workspaceDir, timeoutMs);
  if (!git) return undefined;
  const inside = await git.output(['rev-parse', '--is-inside-work-tree']);
  if (inside?.trim() !== 'true') return undefined;
  const [origin, branch, status, log] = (
    await Promise.all([
      git.output(['remote', 'get-url', 'origin']),
      git.output(['branch', '--show-current']),
      git.output(['status', '--short', '--ignore-submodules=all']),
      git.output(['log', '-3', '--oneline', '--no-decorate', '--no-show-signature', '--no-ext-diff', '--no-textconv']),
    ])
  ).map((out) => out?.trimEnd());
  const statusLines = (status ?? '').split('\n').filter(Boolean);
  const shown = statusLines.slice(0, 20).join('\n') + (statusLines.length > 20 ? `\n(${statusLines.length - 20} more files)` : '');
  return [
    'Git context of the workspace:',
    `origin: ${origin ? withoutCredentials(origin) : '(none)'}`,
    `branch: ${branch || '(detached)'}`,
    `status:\n${shown || '(clean)'}`,
    `recent commits:\n${log || '(none)'}`,
  ].join('\n');
}
