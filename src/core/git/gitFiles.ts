import fs from 'node:fs';

/**
 * Reading the files git keeps its state in, as an untrusted repository may have laid them out:
 * nothing here follows a link, blocks on a FIFO or device, or reads a large file.
 */

/** HEAD, a ref, or the configuration is read whole only up to this size. */
const MAX_READ = 256 * 1024;

/** The file's own stat (a link is not followed); undefined when it is missing or unreadable. */
export function lstat(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

/**
 * A regular file's text, read without following a link and without blocking on a FIFO; undefined
 * for anything else or anything larger than `maxBytes`.
 */
export function readSmall(file: string, maxBytes = MAX_READ): string | undefined {
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  if (O_NOFOLLOW === undefined || O_NONBLOCK === undefined) return undefined; // Windows: ask git
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    const buffer = Buffer.alloc(stat.size);
    const read = fs.readSync(fd, buffer, 0, stat.size, 0);
    return buffer.toString('utf8', 0, read);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
