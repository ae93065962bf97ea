import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir } from '../fs/atomic';
import { safeReaddir } from '../fs/probe';
import type { StoreLayout } from '../format/layout';

/** The temp file of an atomic write (writeFileAtomic's naming), with the pid of its process. */
const ATOMIC_TEMP = /^\.(.+)\.tmp-(\d+)-\d+$/;

/**
 * Taking over a lease whose holder may still be running (stopped, hung, or on another host): a
 * write it had checked its lease for and not yet made must land nowhere when it goes on. Its
 * temp files of atomic writes in the session folder (state.json, the rewind journal) are removed,
 * so its rename fails; the main log is replaced by an identical copy, so the file it holds open
 * is no longer the log. Runs under the session's state.lock, after the new lease is written.
 */
export function displaceHolder(layout: StoreLayout, dir: string): void {
  for (const name of safeReaddir(dir)) {
    const match = ATOMIC_TEMP.exec(name);
    if (match && Number(match[2]) !== process.pid) fs.rmSync(path.join(dir, name), { force: true });
  }
  const log = layout.agentLog(dir);
  if (fs.existsSync(log)) replaceWithCopy(log);
}

/** Replaces a file by a copy of itself (temp, fsync, rename, fsync of the folder): same bytes, another inode. */
function replaceWithCopy(file: string): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-0`);
  try {
    fs.copyFileSync(file, temp);
    const fd = fs.openSync(temp, 'r+');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
  fsyncDir(path.dirname(file));
}
