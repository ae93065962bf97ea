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

/**
 * Which file a path names: its device, inode and birth time. A file replaced whole by a rename (a
 * log `braid doctor --fix` took unreadable lines out of, a takeover's copy) is another file, so a
 * byte offset into the old one means nothing in it.
 */
export function fileIdentity(stats: fs.Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.birthtimeMs}`;
}

/** A file's size and identity ({@link fileIdentity}), or undefined when it cannot be stat'ed. */
export function statFile(file: string): { size: number; identity: string } | undefined {
  try {
    const stats = fs.statSync(file);
    return { size: stats.size, identity: fileIdentity(stats) };
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

/** True when `dir` is a folder (not a file, not missing). */
export function isFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
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
