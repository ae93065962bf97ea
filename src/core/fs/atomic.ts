import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors';

let tempCounter = 0;

/**
 * A file-system failure that names the file it was about ("cannot write <file>: no space left on
 * device"): Node's own message names a temp file or only the system call. It keeps the errno
 * `code`, so callers that test for ENOENT still can.
 */
export class FileSystemError extends Error {
  override readonly name = 'FileSystemError';
  readonly code: string | undefined;

  constructor(
    action: string,
    readonly file: string,
    cause: unknown,
  ) {
    super(`cannot ${action} ${file}: ${fsReason(cause)}`, { cause });
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
  }
}

/** What went wrong, without the system call: "no space left on device (ENOSPC)". */
export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const text = errorMessage(err);
  const described = code ? new RegExp(`^${code}: ([^,]+)`).exec(text)?.[1] : undefined;
  return described ? `${described} (${code})` : text;
}

/** A failed file operation's error, naming `file` (an error already naming a file, or not from the file system, is kept as it is). */
export function namingFile(action: string, file: string, err: unknown): unknown {
  return err instanceof FileSystemError || !(err as NodeJS.ErrnoException | undefined)?.code ? err : new FileSystemError(action, file, err);
}

/** Runs a file operation; its failure names `file`. */
export function naming<T>(action: string, file: string, work: () => T): T {
  try {
    return work();
  } catch (err) {
    throw namingFile(action, file, err);
  }
}

/** fsyncs a folder so a rename or create inside it survives a crash. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on folders; the rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Replaces `file` atomically: writes a temp file beside it, fsyncs it, renames it over the
 * target and fsyncs the folder. A reader sees the old content or the new, never a mix.
 * `beforeReplace` runs last thing before the rename; if it throws, nothing is replaced (and it
 * runs again to explain a failed rename).
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, beforeReplace?: () => void): void {
  replaceFileAtomic(file, (fd) => fs.writeFileSync(fd, data), beforeReplace);
}

/**
 * {@link writeFileAtomic} for content written piece by piece: `fill` writes the new content to
 * the temp file's descriptor (a file too large to hold in memory is copied through it). The temp
 * file is named `.<name>.tmp-<pid>-<n>`, as the doctor's sweep of stray temp files expects.
 */
export function replaceFileAtomic(file: string, fill: (fd: number) => void, beforeReplace?: () => void): void {
  naming('write', file, () => {
    const dir = path.dirname(file);
    const temp = path.join(dir, `.${path.basename(file)}.tmp-${process.pid}-${++tempCounter}`);
    const fd = fs.openSync(temp, 'w');
    try {
      fill(fd);
      fs.fsyncSync(fd);
    } catch (err) {
      fs.closeSync(fd);
      fs.rmSync(temp, { force: true });
      throw err;
    }
    fs.closeSync(fd);
    try {
      beforeReplace?.();
      fs.renameSync(temp, file);
    } catch (err) {
      fs.rmSync(temp, { force: true });
      beforeReplace?.(); // a temp file removed by whoever took the lease over: say that, not ENOENT
      throw err;
    }
    fsyncDir(dir);
  });
}
