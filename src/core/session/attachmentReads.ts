import { SafeGit } from '../git/safeGit';
import { readWhole } from '../tools/confinedFile';
import type { WorkspaceFs } from '../tools/workspaceFs';

/** The biggest file an attachment reads (the model gets at most MAX_ATTACHMENT_CHARS of it). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The text of a workspace file, or of lines `lines` of it, read through the tools' confinement
 * (no link leads it out of the workspace). Throws a clear error for a binary or huge file.
 */
export function readFileText(ws: WorkspaceFs, relative: string, lines?: readonly [number, number]): string {
  const full = ws.resolve(relative);
  const { data } = readWhole(ws, full, relative, MAX_FILE_BYTES, 'too big to attach (4 MiB at most)');
  if (data.subarray(0, 8192).includes(0)) throw new Error(`${relative} is a binary file; only text files can be attached`);
  const text = data.toString('utf8');
  if (!lines) return text;
  return text
    .split('\n')
    .slice(lines[0] - 1, lines[1])
    .join('\n');
}

/**
 * The work tree's changes against HEAD (staged and not), through the git that runs nothing the
 * repository configures; undefined outside a repository or without git. Call it in trusted
 * workspaces only.
 */
export async function readGitDiff(workspaceDir: string, timeoutMs = 10_000): Promise<string | undefined> {
  const git = await SafeGit.open(workspaceDir, timeoutMs);
  if (!git) return undefined;
  const options = ['diff', '--no-color', '--no-ext-diff', '--no-textconv'];
  return (await git.output([...options, 'HEAD'])) ?? (await git.output(options));
}
