import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { statMtime } from './probe';

/** Who holds a lock file; `token` tells this holding from any later one (a new file may get the old one's inode). */
interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly at: number;
  readonly token?: string;
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

/** Throws LockTimeoutError, naming the holder, once `deadline` has passed; undefined before. */
function timedOut(file: string, deadline: number): undefined {
  if (Date.now() <= deadline) return undefined;
  const owner = readOwner(file);
  throw new LockTimeoutError(`${file} is held by process ${owner?.pid ?? '?'} on ${owner?.host ?? '?'}`);
}

/** What `acquireSync` waits on: nothing ever wakes it, so Atomics.wait sleeps for its timeout. */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/**
 * A cross-process lock: a file created exclusively (`wx`) holding its owner's pid and host.
 * A lock whose owner died on this host, or that is older than `staleMs`, is taken over by
 * renaming it aside first, so two waiters cannot both take it over.
 */
export class FileLock {
  private released = false;

  private constructor(
    readonly file: string,
    /** What this holding wrote into the lock file: other content at its path means the lock was taken over. */
    private readonly content: string,
  ) {}

  static async acquire(file: string, options: LockOptions): Promise<FileLock> {
    const deadline = Date.now() + options.timeoutMs;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      const lock = FileLock.tryAcquire(file, options) ?? timedOut(file, deadline);
      if (lock) return lock;
      await sleep(wait + Math.random() * wait);
    }
  }

  /**
   * As `acquire`, waiting without yielding to the event loop: for a lock held only while
   * synchronous work runs (the index's transactions), so that its holders never await inside it.
   */
  static acquireSync(file: string, options: LockOptions): FileLock {
    const deadline = Date.now() + options.timeoutMs;
    for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
      const lock = FileLock.tryAcquire(file, options) ?? timedOut(file, deadline);
      if (lock) return lock;
      Atomics.wait(SLEEPER, 0, 0, wait + Math.random() * wait);
    }
  }

  /** Takes the lock if it is free or stale; returns undefined if someone else holds it. */
  static tryAcquire(file: string, options: Pick<LockOptions, 'staleMs'>): FileLock | undefined {
    const owner: LockOwner = { pid: process.pid, host: os.hostname(), at: Date.now(), token: randomBytes(8).toString('hex') };
    const content = JSON.stringify(owner);
    try {
      fs.writeFileSync(file, content, { flag: 'wx' });
      return new FileLock(file, content);
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

  /** Whether the lock file is still the one this lock created (not released, not taken over as stale). */
  isHeld(): boolean {
    if (this.released) return false;
    try {
      return fs.readFileSync(this.file, 'utf8') === this.content;
    } catch {
      return false;
    }
  }

  /** Tells waiters the holder is alive (the lock file's time is what staleness is judged by), while it is held. */
  refresh(): void {
    if (!this.isHeld()) return;
    const now = new Date();
    try {
      fs.utimesSync(this.file, now, now);
    } catch {
      // taken over meanwhile: the next check says so
    }
  }

  /** Releases the lock (only if it is still ours). */
  release(): void {
    if (!this.isHeld()) return; // released already, or taken over: the file is someone else's now
    this.released = true;
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
