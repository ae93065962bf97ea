import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors';
import { ToolError, type WorkspaceFs } from './workspaceFs';
import { realPath } from '../fs/probe';

// File operations that a link or a folder swapped in between the path check and the operation
// cannot steer out of the workspace (a tool's path is checked before its approval prompt, which
// may wait for minutes). Reads open the file without following a last link (O_NOFOLLOW) and
// check where the kernel says the opened file is before reading a byte. Writes, renames and
// deletions happen inside a folder opened and checked the same way, named through
// /proc/self/fd/<n> on Linux, so that what happens to the path afterwards cannot move them
// (where /proc is missing, the folder's path is checked again just before). A write goes to a
// temp file in that folder and is renamed over the target, so a hard link to a file elsewhere is
// replaced, never written through.

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** An open regular file, checked to be where it was asked for. */
export interface OpenFile {
  readonly fd: number;
  readonly stat: fs.Stats;
}

/** Describes a file that is not a regular one, for refusals. */
function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** Where the kernel says an open file is, or undefined on systems without /proc/self/fd. */
function locationOfFd(fd: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** Throws unless the open file `fd` is the file at `expected` (a real path the workspace allows). */
function requireAt(ws: WorkspaceFs, fd: number, expected: string, asGiven: string): void {
  const located = locationOfFd(fd);
  const here =
    located !== undefined
      ? located === expected
      : sameFile(fs.fstatSync(fd), lstatOrUndefined(expected)) && realPath(path.dirname(expected)) === path.dirname(expected);
  if (!here || !ws.contains(expected)) {
    throw new ToolError(
      `${asGiven} changed while Braid was opening it (a folder or link on the way was replaced); nothing was read or written there, try again`,
    );
  }
}

function sameFile(a: fs.Stats, b: fs.Stats | undefined): boolean {
  return b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Opens `full` (a real path from WorkspaceFs.resolve) for reading: never through a link swapped
 * in, never blocking on a FIFO, and only a regular file. The caller closes `fd`.
 */
export function openForRead(ws: WorkspaceFs, full: string, asGiven: string): OpenFile {
  let fd: number;
  try {
    fd = fs.openSync(full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ToolError(`${asGiven} does not exist`);
    if (code === 'EISDIR') throw new ToolError(`${asGiven} is a folder; use list_dir`);
    if (code === 'ELOOP') throw new ToolError(`${asGiven} was replaced by a symbolic link while Braid opened it; nothing was read`);
    throw new ToolError(`${asGiven} cannot be opened (${code ?? errorMessage(err)})`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw new ToolError(`${asGiven} is a folder; use list_dir`);
    if (!stat.isFile()) throw new ToolError(`${asGiven} is ${kindOf(stat)}, not a regular file; Braid reads and writes regular files only`);
    requireAt(ws, fd, full, asGiven);
    return { fd, stat };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The whole content of a regular file of at most `maxBytes`; bigger files are refused with `tooBig`. */
export function readWhole(ws: WorkspaceFs, full: string, asGiven: string, maxBytes: number, tooBig: string): { data: Buffer; stat: fs.Stats } {
  const { fd, stat } = openForRead(ws, full, asGiven);
  try {
    if (stat.size > maxBytes) throw new ToolError(`${asGiven} is ${formatBytes(stat.size)}, ${tooBig}`);
    const data = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < data.length) {
      const n = fs.readSync(fd, data, read, data.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return { data: data.subarray(0, read), stat };
  } finally {
    fs.closeSync(fd);
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

const swapped = (asGiven: string) =>
  new ToolError(`${asGiven} changed while Braid was using it (a folder on the way was replaced by a link or moved); nothing was written there, try again`);

/**
 * Runs `fn` with a path that names the real folder `dir` (checked to be inside the workspace)
 * whatever happens to `dir`'s path meanwhile: /proc/self/fd/<n> of the opened folder on Linux,
 * else `dir` itself, checked just before.
 */
function inFolder<T>(ws: WorkspaceFs, dir: string, asGiven: string, fn: (folder: string) => T): T {
  let fd: number;
  try {
    fd = fs.openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') throw swapped(asGiven);
    throw new ToolError(`the folder of ${asGiven} cannot be opened (${code ?? errorMessage(err)})`);
  }
  try {
    const located = locationOfFd(fd);
    const here = located !== undefined ? located === dir : realPath(dir) === dir;
    if (!here || !ws.contains(dir)) throw swapped(asGiven);
    const result = fn(located !== undefined ? `/proc/self/fd/${fd}` : dir);
    try {
      fs.fsyncSync(fd); // the folder's new entries survive a crash
    } catch {
      // some file systems refuse fsync on folders; the rename is still atomic there
    }
    return result;
  } finally {
    fs.closeSync(fd);
  }
}

/** An fs call's failure as the tool's one-sentence refusal. */
function refusal(err: unknown, what: string): ToolError {
  if (err instanceof ToolError) return err;
  return new ToolError(`${what} (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})`);
}

/**
 * Creates the missing folders above `full`, one at a time, each inside its checked parent.
 * Returns the folders it created, outermost first.
 */
export function makeParents(ws: WorkspaceFs, full: string, asGiven: string): string[] {
  const missing: string[] = [];
  let dir = path.dirname(full);
  while (!lstatOrUndefined(dir)) {
    missing.unshift(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const created: string[] = [];
  for (const folder of missing) {
    inFolder(ws, path.dirname(folder), asGiven, (parent) => {
      try {
        fs.mkdirSync(path.join(parent, path.basename(folder)));
        created.push(folder);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw refusal(err, `the folder of ${asGiven} cannot be created`);
      }
    });
  }
  return created;
}

/**
 * Replaces the file at `full` (a real path from WorkspaceFs.resolve) with `data`: a temp file is
 * created in the checked folder, written, fsynced, given the old file's mode, and renamed over the
 * target in that same folder. A hard link at `full` is replaced, so a file it shared content with
 * (maybe outside) is untouched. Returns the folders it had to create.
 */
export function replaceFile(ws: WorkspaceFs, full: string, data: string | Uint8Array, asGiven: string): { createdDirs: string[] } {
  const createdDirs = makeParents(ws, full, asGiven);
  const name = path.basename(full);
  const temp = `.${name}.braid-${randomBytes(6).toString('hex')}.tmp`;
  inFolder(ws, path.dirname(full), asGiven, (folder) => {
    const existing = lstatOrUndefined(path.join(folder, name));
    if (existing && !existing.isFile()) throw new ToolError(`${asGiven} is ${kindOf(existing)}, not a regular file; Braid writes regular files only`);
    let fd: number;
    try {
      fd = fs.openSync(path.join(folder, temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, existing ? existing.mode & 0o777 : 0o666);
    } catch (err) {
      throw refusal(err, `${asGiven} cannot be written`);
    }
    try {
      fs.writeFileSync(fd, data);
      if (existing) fs.fchmodSync(fd, existing.mode & 0o7777);
      fs.fsyncSync(fd);
      fs.renameSync(path.join(folder, temp), path.join(folder, name));
    } catch (err) {
      fs.rmSync(path.join(folder, temp), { force: true });
      throw refusal(err, `${asGiven} cannot be written`);
    } finally {
      fs.closeSync(fd);
    }
  });
  return { createdDirs };
}

/** Deletes the regular file at `full` (a real path from WorkspaceFs.resolve), inside its checked folder. A link found there is refused. */
export function removeFile(ws: WorkspaceFs, full: string, asGiven: string): void {
  if (!lstatOrUndefined(full)) return;
  inFolder(ws, path.dirname(full), asGiven, (folder) => {
    const here = path.join(folder, path.basename(full));
    const stat = lstatOrUndefined(here);
    if (!stat) return;
    if (!stat.isFile()) throw new ToolError(`${asGiven} is ${kindOf(stat)}, not a regular file; it was left as it is`);
    fs.rmSync(here, { force: true });
  });
}

/** Removes the folders of `dirs` (innermost first) that are empty and inside the workspace. Returns those removed. */
export function removeEmptyFolders(ws: WorkspaceFs, dirs: readonly string[]): string[] {
  const removed: string[] = [];
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    if (!ws.contains(dir) || ws.roots.includes(dir)) continue;
    try {
      inFolder(ws, path.dirname(dir), dir, (parent) => fs.rmdirSync(path.join(parent, path.basename(dir)))); // only an empty folder goes
      removed.push(dir);
    } catch {
      // not empty, gone, or not a folder any more: left as it is
    }
  }
  return removed;
}
