import path from 'node:path';
import { StoreLayout } from '../core/format/layout';
import { isSessionId } from '../core/ids';
import { safeReaddir } from '../core/fs/probe';
import { isWorkspaceKey } from '../core/workspace/workspaceKey';
import { defaultDataDir, holdsStore, homeOf, startProfileDataDir } from './dataDir';
import { ListedError } from './listedError';

/** How the data folder was chosen: --data-dir, BRAID_HOME, VS Code's folder, or npm start's profile. */
export type DataDirSource = 'option' | 'env' | 'vscode' | 'start-profile';

/** The data folder the CLI uses, and why. */
export interface DataDirChoice {
  readonly dir: string;
  readonly source: DataDirSource;
  /** Why the folder was found, not given (npm start's, because VS Code's has no sessions): said by `braid where`, and on stderr with --verbose. */
  readonly note?: string;
}

/** Where a store may be when none is given, for `braid where` and the choice between them. */
export interface StoreCandidate {
  readonly dir: string;
  readonly source: 'vscode' | 'start-profile';
  readonly exists: boolean;
  readonly sessions: number;
}

const SOURCE_NAMES: Record<DataDirSource, string> = {
  option: '--data-dir',
  env: 'BRAID_HOME',
  vscode: "VS Code's folder for Braid",
  'start-profile': "npm start's folder for Braid",
};

/** What the CLI calls a data folder's origin in messages: "--data-dir", "VS Code's folder for Braid", … */
export function sourceName(source: DataDirSource): string {
  return SOURCE_NAMES[source];
}

/** Session folders a store holds (or its trash does; or one workspace's: `only`); stops counting at `limit`. Reads only. */
export function countSessions(dir: string, options: { in?: 'sessions' | 'trash'; only?: string; limit?: number } = {}): number {
  let count = 0;
  const limit = options.limit ?? Infinity;
  const layout = new StoreLayout(dir);
  const folder = options.in === 'trash' ? layout.trashDir : layout.sessionsDir;
  for (const key of options.only ? [options.only] : safeReaddir(folder).filter(isWorkspaceKey)) {
    count += safeReaddir(path.join(folder, key)).filter(isSessionId).length;
    if (count >= limit) return count;
  }
  return count;
}

/** VS Code's folder and npm start's, as they are now; sessions counted up to `limit`. */
export function storeCandidates(env: NodeJS.ProcessEnv, cwd: string, options: { platform?: NodeJS.Platform; limit?: number } = {}): StoreCandidate[] {
  const probe = (dir: string, source: StoreCandidate['source']): StoreCandidate => ({
    dir,
    source,
    exists: holdsStore(dir),
    sessions: countSessions(dir, { limit: options.limit ?? 1 }),
  });
  const platform = options.platform ?? process.platform;
  return [probe(defaultDataDir(env, platform, homeOf(env)), 'vscode'), probe(startProfileDataDir(env, cwd), 'start-profile')];
}

/**
 * The data folder: `--data-dir`, else BRAID_HOME, else the one of VS Code's folder and npm
 * start's that holds sessions (with neither holding any: the one that holds a store, VS Code's
 * first). Two that both hold sessions are never guessed between: a ListedError names both and
 * how to pick. Nothing is created or written.
 */
export function chooseDataDir(option: string | undefined, env: NodeJS.ProcessEnv, cwd: string, platform: NodeJS.Platform = process.platform): DataDirChoice {
  if (option) return { dir: path.resolve(cwd, option), source: 'option' };
  if (env.BRAID_HOME) return { dir: path.resolve(cwd, env.BRAID_HOME), source: 'env' };
  const [vscode, start] = storeCandidates(env, cwd, { platform }) as [StoreCandidate, StoreCandidate];
  if (vscode.sessions > 0 && start.sessions > 0) throw twoStores([vscode, start]);
  const rank = (c: StoreCandidate) => (c.sessions > 0 ? 2 : c.exists ? 1 : 0);
  if (rank(start) <= rank(vscode)) return { dir: vscode.dir, source: 'vscode' };
  const why = vscode.exists ? 'holds no sessions' : 'holds no Braid data';
  return {
    dir: start.dir,
    source: 'start-profile',
    note: `using npm start's data folder ${start.dir} (VS Code's folder for Braid ${why}); --data-dir or BRAID_HOME picks another`,
  };
}

function twoStores(candidates: readonly StoreCandidate[]): ListedError {
  return new ListedError(
    'two data folders hold Braid sessions; pick one with --data-dir DIR or BRAID_HOME=DIR:',
    candidates.map((c) => `${sourceName(c.source)}: ${c.dir}`),
  );
}
