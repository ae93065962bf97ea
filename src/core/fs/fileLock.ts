import fs from 'node:fs';
import os from 'node:os';
import { statMtime } from './probe';

/** Who holds a lock file. */
interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly at: number;
}

export interface LockOptions {
  /** A lock older than this is taken over even if its owner may live (a hung process). */
  readonly staleMs: number;
  /** Give up waiting after this long. */
  readonly timeoutMs: number;
}

/** A lock could not be taken in time; the message names the holder. */
export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
}

/** True while a process with this pid lives (on this host). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner;
    return typeof owner.pid === 'number' ? owner : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A cross-process lock: a file created exclusively (`wx`) holding its owner's pid and host.
 * A lock whose owner died on this host, or that is older than `staleMs`, is taken over by
 * renaming it aside first, so two waiters cannot both take it over.
 */
export class FileLock {
  private released = false;

  private constructor(readonly file: string) {}

  static async acquire(file: string, options: LockOptions): Promise<FileLock> {
    const deadline = Date.now() + options.timeoutMs;
    let wait = 2;
    for (;;) {
      const lock = FileLock.tryAcquire(file, options);
      if (lock) return lock;
      if (Date.now() > deadline) {
        const owner = readOwner(file);
        throw new LockTimeoutError(`${file} is held by process ${owner?.pid ?? '?'} on ${owner?.host ?? '?'}`);
      }
      await sleep(wait + Math.random() * wait);
      wait = Math.min(wait * 2, 50);
    }
  }

  /** Takes the lock if it is free or stale; returns undefined if someone else holds it. */
  static tryAcquire(file: string, options: Pick<LockOptions, 'staleMs'>): FileLock | undefined {
    const owner: LockOwner = { pid: process.pid, host: os.hostname(), at: Date.now() };
    try {
      fs.writeFileSync(file, JSON.stringify(owner), { flag: 'wx' });
      return new FileLock(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (FileLock.isStale(file, options.staleMs)) {
      const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
      try {
        fs.renameSync(file, aside);
        fs.rmSync(aside, { force: true });
      } catch {
        // someone else took it over first
      }
    }
    return undefined;
  }

  private static isStale(file: string, staleMs: number): boolean {
    const mtime = statMtime(file);
    if (mtime === undefined) return false; // gone already: the next attempt will take it
    const owner = readOwner(file);
    if (owner && owner.host === os.hostname() && owner.pid !== process.pid && !isAlive(owner.pid)) return true;
    // A lock file still empty (its owner died between create and write) or simply too old.
    return Date.now() - mtime > staleMs;
  }

  /** Releases the lock (only if it is still ours). */
  release(): void {
    if (this.released) return;
    this.released = true;
    const owner = readOwner(this.file);
    if (owner && (owner.pid !== process.pid || owner.host !== os.hostname())) return;
    fs.rmSync(this.file, { force: true });
  }
}

/** Runs `fn` while holding the lock at `file`. */
export async function withFileLock<T>(file: string, options: LockOptions, fn: () => T | Promise<T>): Promise<T> {
  const lock = await FileLock.acquire(file, options);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}
