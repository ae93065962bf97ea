import fs from 'node:fs';
import path from 'node:path';
import { FileSystemError } from './atomic';
import { isFolder } from './probe';

/**
 * Makes `dir` and its missing parents one level at a time, as a recursive mkdir would, and
 * returns the first folder it made (undefined when `dir` was there). Node's recursive mkdir never
 * returns on a file system that refuses new folders while saying the parent is missing (/proc
 * does). A failure is a FileSystemError naming the folder that could not be made.
 */
export function makeFolders(dir: string): string | undefined {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !isFolder(d); d = path.dirname(d)) {
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  let first: string | undefined;
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
      first ??= d;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && isFolder(d)) continue; // another process made it just now
      throw new FileSystemError('create the folder', d, err);
    }
  }
  return first;
}
