import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { writeFileAtomic } from '../fs/atomic';
import { isAlive } from '../fs/fileLock';

/** Renewed this often by its holder. */
export const LEASE_RENEW_MS = 10_000;
/** Not renewed for this long: its holder is gone or hung. */
export const LEASE_STALE_MS = 30_000;

/** What writer.lock says. */
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
    super(`this session is being written by process ${holder.pid} on ${holder.host} (another window or the CLI); it opens read-only here`);
  }
}

/** Reads a lease file; undefined when there is none or it cannot be read. */
export function readLease(file: string): LeaseInfo | undefined {
  try {
    const info = JSON.parse(fs.readFileSync(file, 'utf8')) as LeaseInfo;
    return typeof info.pid === 'number' && typeof info.token === 'string' ? info : undefined;
  } catch {
    return undefined;
  }
}

/** A lease is stale when not renewed for 30 s, or when its holder on this host has died. */
export function isStale(info: LeaseInfo | undefined, now = Date.now()): boolean {
  if (!info) return true;
  if (info.host === os.hostname() && info.pid !== process.pid && !isAlive(info.pid)) return true;
  return now - info.renewedAt > LEASE_STALE_MS;
}

/**
 * The one-writer lease of a session (DESIGN.md 6): `writer.lock` names the process that may
 * append, renewed every 10 s. A fresh lease held by another process makes `acquire` throw
 * SessionBusyError; a stale one is taken over only when the caller says so (`takeOver`), since
 * taking it decides who writes.
 */
export class WriterLease {
  private timer: NodeJS.Timeout | undefined;
  private lost = false;

  private constructor(readonly file: string, private info: LeaseInfo) {}

  static acquire(file: string, options: { takeOver?: boolean } = {}): WriterLease {
    const now = Date.now();
    const info: LeaseInfo = { pid: process.pid, host: os.hostname(), token: randomBytes(8).toString('hex'), acquiredAt: now, renewedAt: now };
    try {
      fs.writeFileSync(file, JSON.stringify(info), { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLease(file);
      if (holder && !isStale(holder)) throw new SessionBusyError(holder);
      if (!options.takeOver) throw new SessionBusyError(holder ?? { ...info, pid: -1, host: 'unknown' });
      writeFileAtomic(file, JSON.stringify(info));
    }
    const lease = new WriterLease(file, info);
    lease.timer = setInterval(() => {
      // A timer's throw would be uncaught (in the extension host too): a folder removed under
      // the lease, or a full disk, just ends the renewals; writes check `held` themselves.
      try {
        lease.renew();
      } catch {
        lease.lost = true;
        lease.stop();
      }
    }, LEASE_RENEW_MS);
    lease.timer.unref();
    return lease;
  }

  /** False once another process took the lease over: this process must stop writing. */
  get held(): boolean {
    if (this.lost) return false;
    const current = readLease(this.file);
    if (!current || current.token !== this.info.token) this.lost = true;
    return !this.lost;
  }

  renew(): void {
    if (!this.held) {
      this.stop();
      return;
    }
    this.info = { ...this.info, renewedAt: Date.now() };
    writeFileAtomic(this.file, JSON.stringify(this.info));
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Gives the lease up (only if still ours). */
  release(): void {
    this.stop();
    if (this.held) fs.rmSync(this.file, { force: true });
    this.lost = true;
  }
}
