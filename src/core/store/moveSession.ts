import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir } from '../fs/atomic';
import type { StoreLayout } from '../format/layout';
import { WriterLease, withStateLock } from './writerLease';

/**
 * Moves the session folder `dir` to `target` (the trash, another workspace's folder) while nothing
 * else touches it: under its writer lease (SessionBusyError while another process writes it) and
 * its state.lock, so no change of its state.json is half done when it goes. `prepare` runs under
 * both, right before the move. The lock files travel with the folder and are removed from `target`
 * (state.lock last: it is the lock held). SessionNotFoundError when the folder went away first. A
 * session pulled from a git remote moves only with `evenShared` (SharedSessionError otherwise):
 * to the trash, yes; to another workspace (a relink), no.
 */
export async function moveSessionFolder(
  layout: StoreLayout,
  dir: string,
  target: string,
  prepare?: () => void | Promise<void>,
  options: { evenShared?: boolean } = {},
): Promise<void> {
  const lease = await WriterLease.acquire(layout, dir, options);
  try {
    await withStateLock(layout, dir, async () => {
      await prepare?.();
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.renameSync(dir, target);
      fs.rmSync(layout.writerLock(target), { force: true });
      fs.rmSync(layout.stateLock(target), { force: true });
    });
  } finally {
    await lease.release(); // the lease file went with the folder: nothing is left to give back
  }
  fsyncDir(path.dirname(dir));
  fsyncDir(path.dirname(target));
}
