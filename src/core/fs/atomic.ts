import fs from 'node:fs';
import path from 'node:path';

let tempCounter = 0;

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
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.tmp-${process.pid}-${++tempCounter}`);
  const fd = fs.openSync(temp, 'w');
  try {
    fs.writeFileSync(fd, data);
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
}
