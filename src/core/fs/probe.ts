import fs from 'node:fs';

/** A folder's entries, or none when it does not exist or cannot be read. */
export function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** A file's mtime in ms, or 0 when it does not exist. */
export function statMtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** A file's size in bytes, or 0 when it does not exist. */
export function statSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** The real path of `p` (links resolved), or undefined when it does not exist or cannot be resolved. */
export function realPath(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}
