import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StoreLayout } from '../core/format/layout';
import { FileSystemError, fsReason } from '../core/fs/atomic';
import { makeFolders } from '../core/fs/folders';

/** The extension's id, which names its globalStorage folder. */
export const EXTENSION_ID = 'braid-dev.braid';

/** VS Code's globalStorage folder for Braid on this OS (the desktop VS Code's "Code" profile). */
export function defaultDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, home = os.homedir()): string {
  if (platform === 'win32') return path.win32.join(env.APPDATA ?? path.win32.join(home, 'AppData', 'Roaming'), 'Code', 'User', 'globalStorage', EXTENSION_ID);
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', 'Code', 'User', 'globalStorage', EXTENSION_ID);
  return path.posix.join(env.XDG_CONFIG_HOME || path.posix.join(home, '.config'), 'Code', 'User', 'globalStorage', EXTENSION_ID);
}

/** The home folder: HOME when set (a test's, a sandbox's), else the OS's. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || os.homedir();
}

/**
 * Braid's globalStorage folder in `npm start`'s VS Code profile, found as scripts/start.ts and
 * scripts/toolchain.mjs place it: BRAID_START_PROFILE, else the cache folder's `start-profile`
 * (BRAID_CACHE_DIR, else $XDG_CACHE_HOME/braid, else ~/.cache/braid).
 */
export function startProfileDataDir(env: NodeJS.ProcessEnv, cwd: string, home = homeOf(env)): string {
  const cache = env.BRAID_CACHE_DIR || path.join(env.BRAID_ORIGINAL_XDG_CACHE_HOME || env.XDG_CACHE_HOME || path.join(home, '.cache'), 'braid');
  const profile = path.resolve(cwd, env.BRAID_START_PROFILE || path.join(cache, 'start-profile'));
  return path.join(profile, 'user-data', 'User', 'globalStorage', EXTENSION_ID);
}

/** True when `dir` holds a Braid store: its sessions folder, its trash or its index. Reads only. */
export function holdsStore(dir: string): boolean {
  const layout = new StoreLayout(dir);
  return [layout.sessionsDir, layout.trashDir, layout.legacyIndexFile].some((file) => fs.existsSync(file));
}

/** The data folder cannot be used; the message says why and what to do. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

/** Creates the data folder and its sessions folder (one level at a time: makeFolders). */
export function prepareDataDir(dataDir: string): void {
  try {
    makeFolders(new StoreLayout(path.resolve(dataDir)).sessionsDir);
  } catch (err) {
    if (!(err instanceof FileSystemError)) throw err;
    throw new DataDirError(
      `cannot use ${dataDir} as the data folder: creating ${err.file} failed: ${fsReason(err.cause)}; pick a folder you can write with --data-dir or BRAID_HOME`,
    );
  }
}
