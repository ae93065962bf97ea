import { SafeGit } from './safeGit';

/**
 * The paths `.gitignore` (and `.git/info/exclude`) ignore in a work tree folder, as git lists
 * them: a folder whose files are all ignored is one entry ending with '/', other ignored files
 * are named one by one. Paths are '/' separated and relative to the folder git ran in.
 */
export class IgnoredPaths {
  private readonly files = new Set<string>();
  private readonly folders = new Set<string>();

  /** From `git ls-files -z --others --ignored --exclude-standard --directory` output. */
  constructor(listing: string) {
    for (const entry of listing.split('\0')) {
      if (entry.endsWith('/')) this.folders.add(entry.slice(0, -1));
      else if (entry) this.files.add(entry);
    }
  }

  /** How many entries git listed (a folder counts once). */
  get size(): number {
    return this.files.size + this.folders.size;
  }

  /** True when `path` (a file or folder) is ignored: named itself or inside an ignored folder. */
  has(path: string): boolean {
    const clean = path.replace(/\/+$/, '');
    if (this.files.has(clean) || this.folders.has(clean)) return true;
    for (let slash = clean.indexOf('/'); slash > 0; slash = clean.indexOf('/', slash + 1)) {
      if (this.folders.has(clean.slice(0, slash))) return true;
    }
    return false;
  }
}

/**
 * The ignored paths of `dir`'s work tree, read with git run safely (no hooks, no configured
 * programs); undefined when git is not installed or `dir` is in no repository. Only for a trusted
 * workspace: an untrusted one gets no git at all.
 */
export async function readIgnoredPaths(dir: string, timeoutMs = 10_000): Promise<IgnoredPaths | undefined> {
  const git = await SafeGit.open(dir, timeoutMs);
  if (!git) return undefined;
  const listing = await git.output(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']);
  return listing === undefined ? undefined : new IgnoredPaths(listing);
}
