import os from 'node:os';
import path from 'node:path';

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
