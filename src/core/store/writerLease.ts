import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { writeFileAtomic } from '../fs/atomic';
import { isAlive, withFileLock, type LockOptions } from '../fs/fileLock';
import { statMtime } from '../fs/probe';
import type { StoreLayout } from '../format/layout';
import { sharedOriginOf } from '../format/sessionState';
import { goneMeanwhile, SharedSessionError } from './errors';
import { displaceHolder } from './takeover';

/** The product's lease times: renewed every 10 s, taken over after 30 s without renewal. */
const DEFAULT_STALE_MS = 30_000;

/**
 * How often a lease is renewed and when an unrenewed one is stale. BRAID_LEASE_STALE_MS shortens
 * them for tests that pause a writer past its lease (renewal every third of it); read at each use.
 */
export function leaseTimes(): { renewMs: number; staleMs: number } {
  const forced = Number(process.env.BRAID_LEASE_STALE_MS);
  const staleMs = Number.isFinite(forced) && forced > 0 ? forced : DEFAULT_STALE_MS;
  return { renewMs: staleMs / 3, staleMs };
}

/**
 * The session's state.lock, which also guards taking and giving back the lease. It goes stale no
 * later than a third of the lease, so a writer stopped while holding it delays a takeover by that
 * much at most (10 s with the product's times).
 */
export function stateLockOptions(): LockOptions {
  return { staleMs: Math.min(10_000, leaseTimes().staleMs / 3), timeoutMs: 15_000 };
}

/**
 * Runs `fn` under the state.lock of the session folder `dir`. A folder that went away before the
 * lock was taken (another process deleted or moved the session just now) is SessionNotFoundError;
 * the processes that move a session folder do it under this lock (moveSessionFolder), so it never
 * goes away while `fn` runs.
 */
export async function withStateLock<T>(layout: StoreLayout, dir: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await withFileLock(layout.stateLock(dir), stateLockOptions(), fn);
  } catch (err) {
    throw goneMeanwhile(err, dir);
  }
}

/** What writer.lock says; `renewedAt` is the file's modification time (a renewal touches it). */
export interface LeaseInfo {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
  readonly acquiredAt: number;
  readonly renewedAt: number;
}

/** Someone else holds a fresh lease on the session; the message names them. */
export class SessionBusyError extends Error {
  override readonly name = 'SessionBusyError';
  constructor(readonly holder: LeaseInfo) {
    super(`this session is being written by process ${holder.pid} on ${holder.host} (another window or the CLI); wait for it to finish, or close it there`);
  }
}

/** This process's lease was taken over (it was stopped or too slow to renew it): it must write nothing more. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor() {
    super(
      'another process took over writing this session while this one was not answering (paused or too slow), so nothing more was saved here; open the session again to go on from what the other process wrote',
    );
  }
}

/** Reads a lease file; undefined when there is none or it cannot be read. */
export function readLease(file: string): LeaseInfo | undefined {
  const info = readHolder(file);
  const renewedAt = statMtime(file);
  return info && renewedAt !== undefined ? { ...info, renewedAt } : undefined;
}

/** What writer.lock names, without its time (the fence's check reads only this). */
function readHolder(file: string): Omit<LeaseInfo, 'renewedAt'> | undefined {
  try {
    const info = JSON.parse(fs.readFileSync(file, 'utf8')) as LeaseInfo;
    return typeof info.pid === 'number' && typeof info.token === 'string' ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a lease may be taken over: its holder on this host is gone (at once), or it has not been
 * renewed for the stale time (a holder on another host, or one on this host that is stopped or hung;
 * the fence keeps such a holder from writing once it goes on). A lease no one can read is stale:
 * writer.lock is only ever replaced whole.
 */
export function isStale(info: LeaseInfo | undefined, now = Date.now()): boolean {
  if (!info) return true;
  if (isDead(info)) return true;
  return now - info.renewedAt > leaseTimes().staleMs;
}

/** The holder ran on this host and its process is gone. */
export function isDead(info: LeaseInfo): boolean {
  return info.host === os.hostname() && info.pid !== process.pid && !isAlive(info.pid);
}

/**
 * The one-writer lease of a session (docs/architecture.md, Fork, rewind, the lease and recovery): `writer.lock` names the process that may append
 * and carries a token of its own. Taking it (fresh, or over a stale one) and giving it back happen
 * under the session's state.lock, so two processes never both take it. The holder touches the
 * file every renewal; it checks, before each write, that the file still holds its token (`check`).
 * A takeover from a holder that may still run also displaces it (see displaceHolder), so a write
 * it had checked for just before it stopped lands nowhere.
 */
export class WriterLease {
  private timer: NodeJS.Timeout | undefined;
  private lost = false;
  /** The lease this one replaced, when it was taken over from another process (for the log). */
  tookOverFrom: LeaseInfo | undefined;

  private constructor(
    readonly file: string,
    private readonly guard: string,
    private readonly info: Omit<LeaseInfo, 'renewedAt'>,
  ) {}

  /**
   * Takes the lease of the session in `dir`; SessionBusyError when another process holds a fresh
   * one. A session pulled from a git remote (state.json `shared`, or its `shared.json` sidecar when
   * state.json cannot be read) is refused (SharedSessionError):
   * every write of a session takes this lease, so this is where a pulled session is read-only. Only
   * `evenShared` callers take it: moving the session to the trash, and a pull replacing its copy.
   */
  static async acquire(layout: StoreLayout, dir: string, options: { evenShared?: boolean } = {}): Promise<WriterLease> {
    const file = layout.writerLock(dir);
    const info = { pid: process.pid, host: os.hostname(), token: randomBytes(8).toString('hex'), acquiredAt: Date.now() };
    let replaced: LeaseInfo | undefined;
    await withStateLock(layout, dir, () => {
      const shared = options.evenShared ? undefined : sharedOriginOf(dir);
      if (shared) throw new SharedSessionError(shared);
      const holder = readLease(file);
      if (holder && !isStale(holder)) throw new SessionBusyError(holder);
      replaced = holder;
      const mayLive = fs.existsSync(file) && !(holder && isDead(holder));
      writeFileAtomic(file, JSON.stringify(info));
      try {
        if (mayLive) displaceHolder(layout, dir);
      } catch (err) {
        fs.rmSync(file, { force: true });
        throw err;
      }
    });
    const lease = new WriterLease(file, layout.stateLock(dir), info);
    lease.tookOverFrom = replaced;
    lease.timer = setInterval(() => lease.renew(), leaseTimes().renewMs);
    lease.timer.unref();
    return lease;
  }

  /** False once another process took the lease over (or it was given back): this process must not write. */
  get held(): boolean {
    if (this.lost) return false;
    if (readHolder(this.file)?.token !== this.info.token) this.lost = true;
    return !this.lost;
  }

  /** Throws LeaseLostError unless this process still holds the lease. Called right before each write. */
  check(): void {
    if (!this.held) throw new LeaseLostError();
  }

  /**
   * Touches the lease file. Nothing is rewritten, so a renewal that comes late (after a pause) can
   * at worst freshen another holder's lease, never take it back. A timer's throw would be uncaught
   * (in the extension host too), so a failure just ends the renewals; writes check for themselves.
   */
  private renew(): void {
    try {
      if (!this.held) throw new LeaseLostError();
      const now = new Date();
      fs.utimesSync(this.file, now, now);
    } catch {
      this.stop();
    }
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Gives the lease up, only if it is still ours (a folder gone meanwhile took it along). */
  async release(): Promise<void> {
    this.stop();
    if (!this.held) return;
    this.lost = true;
    try {
      await withFileLock(this.guard, stateLockOptions(), () => {
        if (readHolder(this.file)?.token === this.info.token) fs.rmSync(this.file, { force: true });
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
