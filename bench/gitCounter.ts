// Counts the git processes something starts: a `git` first on PATH that notes each start in a
// file, then hands over to the real git. Used by the startup bench (the git context of a turn) and
// the index-scale bench (the git processes of a `braid exec` turn).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface GitCounter {
  /** The real git, for setting up repositories without being counted. */
  readonly realGit: string;
  /** PATH with the counting git first. */
  readonly path: string;
  /** The git processes started since the last reset. */
  count(): number;
  reset(): void;
}

/** A counting git in `dir`/bin, its log in `dir`. */
export function gitCounter(dir: string): GitCounter {
  const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  if (!realGit) throw new Error('git is not on PATH');
  const log = path.join(dir, 'git-started.log');
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho x >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
  return {
    realGit,
    path: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    count: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0),
    reset: () => fs.rmSync(log, { force: true }),
  };
}
