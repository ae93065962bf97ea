import fs from 'node:fs';
import { walkLinesBackward } from './lineWalk';

/** Backward reads take small chunks: a newest page is usually within the last one. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Visits the lines of a file from its end backwards, newest first, reading it in chunks so that
 * what is read is what is visited (walkLinesBackward, with each line as text). `visit` gets each
 * non-empty line's text and the byte offset of its start, and returns false to stop. Starts at
 * byte `end` (a line start), or at the file's end when `end` is past it: an offset can come from a
 * page cursor a webview sent back, and bytes the file does not have are never visited. Returns the
 * bytes read.
 */
export function scanBackward(fd: number, end: number, visit: (line: string, offset: number) => boolean): number {
  const start = Math.min(end, fs.fstatSync(fd).size);
  return walkLinesBackward(fd, start, (buf, from, to, offset) => visit(buf.toString('utf8', from, to), offset), { chunkBytes: CHUNK_BYTES });
}

/** Opens a file for reading; undefined when it does not exist. */
export function openIfExists(file: string): number | undefined {
  try {
    return fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
