import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fsReason } from '../core/fs/atomic';

/** The extension's id, which names its globalStorage folder. */
export const EXTENSION_ID = 'braid-dev.braid';

/** VS Code's globalStorage folder for Braid on this OS (the desktop VS Code's "Code" profile). */
export function defaultDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, home = os.homedir()): string {
  if (platform === 'win32') return path.win32.join(env.APPDATA ?? path.win32.join(home, 'AppData', 'Roaming'), 'Code', 'User', 'globalStorage', EXTENSION_ID);
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', 'Code', 'User', 'globalStorage', EXTENSION_ID);
  return path.posix.join(env.XDG_CONFIG_HOME || path.posix.join(home, '.config'), 'Code', 'User', 'globalStorage', EXTENSION_ID);
}

/** `--data-dir`, else `BRAID_HOME`, else VS Code's globalStorage folder. */
export function resolveDataDir(option: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  if (option) return path.resolve(cwd, option);
  if (env.BRAID_HOME) return path.resolve(cwd, env.BRAID_HOME);
  return defaultDataDir(env);
}

/** The data folder cannot be used; the message says why and what to do. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

/**
 * Creates the data folder and its sessions folder one level at a time. Node's recursive mkdir
 * never returns on a file system that refuses new folders while saying the parent is missing
 * (/proc does), so the store's own recursive calls only ever meet folders that exist.
 */
export function prepareDataDir(dataDir: string): void {
  const missing: string[] = [];
  for (let dir = path.join(path.resolve(dataDir), 'sessions'); !isFolder(dir); dir = path.dirname(dir)) {
    missing.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of missing) {
    try {
      fs.mkdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && isFolder(dir)) continue; // another process made it just now
      throw new DataDirError(`cannot use ${dataDir} as the data folder: creating ${dir} failed: ${fsReason(err)}; pick a folder you can write with --data-dir or BRAID_HOME`);
    }
  }
}

/** True when `dir` is a folder (not a file, not missing). */
export function isFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
