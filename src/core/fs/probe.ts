import fs from 'node:fs';

/** A folder's entries, or none when it does not exist or cannot be read. */
export function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * A file's modification time in ms, or undefined when it cannot be stat'ed (missing, or no
 * permission). Never a number then, so a file that is gone never equals a time recorded earlier:
 * a caller that treats "missing" as a time says which (`?? 0`: older than anything).
 */
export function statMtime(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
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
