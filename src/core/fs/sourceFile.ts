import fs from 'node:fs';
import path from 'node:path';

// Every file of another tool is opened here. Source files are data a stranger may have written
// (a session copied from elsewhere, a crafted folder): an id in them never becomes a path of its
// own, a file is read only from inside the folder it was found in, links are not followed, and
// only regular files are read, each up to the size it had when opened (a FIFO, a device or a file
// that keeps growing can neither hang nor flood an import).

const { O_RDONLY } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** A source file that is not read, and why (the sentence a person reads after the file's name). */
export class SourceRefusedError extends Error {
  override readonly name = 'SourceRefusedError';
}

/** An open source file: read it only up to `size`, its length when it was opened. */
export interface OpenSource {
  readonly fd: number;
  readonly size: number;
}

/** What a non-regular file is, in words. */
export function fileKind(stat: fs.Stats): string {
  if (stat.isSymbolicLink()) return 'a symbolic link (links are not followed)';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * A name a source gives (a session, message or agent id) as one path segment: no separator, no
 * NUL, not `.` or `..`, at most 255 bytes. Null when it cannot be one.
 */
export function pathSegment(name: string): string | null {
  if (!name || name === '.' || name === '..' || Buffer.byteLength(name) > 255) return null;
  return /[/\\\0]/.test(name) ? null : name;
}

/** `folder/…names` when every name is a plain segment ({@link pathSegment}); null otherwise. */
export function childPath(folder: string, ...names: string[]): string | null {
  const segments = names.map(pathSegment);
  return segments.every((s): s is string => s !== null) ? path.join(folder, ...segments) : null;
}

function realPathOf(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

/** The real paths of the folders files are found in: an import reads thousands of files from a few of them. */
const realRoots = new Map<string, string | null>();

function realRoot(folder: string): string | null {
  let real = realRoots.get(folder);
  if (real === undefined) {
    real = realPathOf(folder);
    if (realRoots.size > 1000) realRoots.clear();
    realRoots.set(folder, real);
  }
  return real;
}

/** Whether the real path `real` lies inside the real path `folder` (or is it). */
function within(real: string, folder: string): boolean {
  const relative = path.relative(folder, real);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Whether `p` lies inside `folder` (or is it), by their real paths: a link on the way cannot take it out. */
export function isInside(p: string, folder: string): boolean {
  const inner = realPathOf(p);
  const outer = realRoot(folder);
  return inner !== null && outer !== null && within(inner, outer);
}

/** Whether this system names an open file's real path (Linux's /proc/self/fd). */
const HAS_FD_PATHS = fs.existsSync('/proc/self/fd');

/** Where the kernel says an open file is (a real path); undefined where /proc/self/fd is missing. */
function locationOf(fd: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Opens a source file for reading: a regular file inside `root` (its folder's real path under
 * root's), the last component not a link, opened without blocking. Throws SourceRefusedError
 * saying why otherwise.
 */
export function openSource(file: string, root: string): OpenSource {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (err) {
    throw new SourceRefusedError((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `cannot be read (${(err as Error).message})`);
  }
  if (!stat.isFile()) throw new SourceRefusedError(fileKind(stat));
  const outside = () => new SourceRefusedError(`outside the folder it was found in (${root}); a link on the way is not followed`);
  const realFolder = realRoot(root);
  // Where the kernel can say where an open file is, that is checked after opening; elsewhere its folder's real path before.
  if (!HAS_FD_PATHS && !isInside(path.dirname(file), root)) throw outside();
  let fd: number;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SourceRefusedError(code === 'ELOOP' ? fileKind(fs.lstatSync(file)) : `cannot be opened (${code ?? (err as Error).message})`);
  }
  try {
    const opened = fs.fstatSync(fd);
    // The file opened is the one checked: not swapped for another (a pipe, a link's target) in between.
    if (!opened.isFile() || opened.ino !== stat.ino || opened.dev !== stat.dev) throw new SourceRefusedError('changed while it was being opened; not read');
    const located = locationOf(fd);
    if (located !== undefined && (realFolder === null || !within(located, realFolder))) throw outside();
    return { fd, size: opened.size };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** Reads a whole source file of at most `limit` bytes (a note beside a session: a meta file, an opencode JSON file). */
export function readSource(file: string, root: string, limit: number): Buffer {
  const { fd, size } = openSource(file, root);
  try {
    if (size > limit) throw new SourceRefusedError(`larger than ${Math.round(limit / 1048576)} MB`);
    const bytes = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = fs.readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}

/** A source file's first `length` bytes (at most), or null when it cannot be read. */
export function readSourceHead(file: string, root: string, length: number): Buffer | null {
  let open: OpenSource;
  try {
    open = openSource(file, root);
  } catch {
    return null;
  }
  try {
    const bytes = Buffer.allocUnsafe(Math.min(length, open.size));
    return bytes.subarray(0, fs.readSync(open.fd, bytes, 0, bytes.length, 0));
  } finally {
    fs.closeSync(open.fd);
  }
}
