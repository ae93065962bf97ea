import fs from 'node:fs';
import type { WireRecord } from '../wire/records';
import { readWireLog } from '../wire/wireReader';
import { statFile } from '../fs/probe';

/**
 * Called with the records of the complete lines a look found; `fromStart` when the log was
 * replaced whole since the last look (`braid doctor --fix` took unreadable lines out of it): the
 * records are then all of the new file's, and what was handed over before is to be read anew.
 */
export type FollowedRecords = (records: WireRecord[], fromStart: boolean) => void;

/**
 * Follows a log another process appends to (a session open read-only here): reads the complete
 * lines added since the last look and hands their records over. File events plus a 500 ms poll,
 * since file watching is unreliable on some file systems. A byte offset means something only in
 * the file it was taken in, so each look checks that the path still names that file (its
 * identity, docs/reference.md, Wire records) and reads a replaced one from its start.
 */
export class LogFollower {
  private offset: number;
  private identity: string | undefined;
  private watcher: fs.FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading = false;

  constructor(
    private readonly file: string,
    private readonly onRecords: FollowedRecords,
    fromOffset?: number,
  ) {
    const now = statFile(file);
    this.identity = now?.identity;
    this.offset = fromOffset ?? now?.size ?? 0;
  }

  start(): this {
    try {
      this.watcher = fs.watch(this.file, () => this.check());
      this.watcher.on('error', () => undefined);
    } catch {
      // the poll covers it
    }
    this.timer = setInterval(() => this.check(), 500);
    this.timer.unref();
    return this;
  }

  /** Reads what was added since the last look (all of a replaced log); returns the records. */
  check(): WireRecord[] {
    if (this.reading) return [];
    this.reading = true;
    try {
      const now = statFile(this.file);
      if (!now) return [];
      const fromStart = now.identity !== this.identity || now.size < this.offset;
      if (fromStart) [this.identity, this.offset] = [now.identity, 0];
      const end = now.size > this.offset ? this.completeEnd(now.size) : this.offset;
      const records = end > this.offset ? readWireLog(this.file, { start: this.offset, end }).records : [];
      if (statFile(this.file)?.identity !== now.identity) return []; // replaced while being read: the next look reads it from its start
      this.offset = end;
      if (records.length || fromStart) this.onRecords(records, fromStart);
      return records;
    } finally {
      this.reading = false;
    }
  }

  /** The end of the last complete line before `size` (a line being written is left for later). */
  private completeEnd(size: number): number {
    const fd = fs.openSync(this.file, 'r');
    try {
      const length = size - this.offset;
      const buffer = Buffer.alloc(Math.min(length, 1024 * 1024));
      for (let end = size; end > this.offset; end -= buffer.length) {
        const start = Math.max(this.offset, end - buffer.length);
        fs.readSync(fd, buffer, 0, end - start, start);
        const nl = buffer.subarray(0, end - start).lastIndexOf(10);
        if (nl >= 0) return start + nl + 1;
      }
      return this.offset;
    } finally {
      fs.closeSync(fd);
    }
  }

  stop(): void {
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
  }
}
