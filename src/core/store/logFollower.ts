import fs from 'node:fs';
import type { WireRecord } from '../wire/records';
import { readWireLog } from '../wire/wireReader';
import { statSize } from '../fs/probe';

/**
 * Follows a log another process appends to (a session open read-only here): reads the complete
 * lines added since the last look and hands their records over. File events plus a 500 ms poll,
 * since file watching is unreliable on some file systems.
 */
export class LogFollower {
  private offset: number;
  private watcher: fs.FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading = false;

  constructor(
    private readonly file: string,
    private readonly onRecords: (records: WireRecord[]) => void,
    fromOffset?: number,
  ) {
    this.offset = fromOffset ?? statSize(file);
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

  /** Reads what was added since the last look; returns the records. */
  check(): WireRecord[] {
    if (this.reading) return [];
    this.reading = true;
    try {
      const size = statSize(this.file);
      if (size <= this.offset) return [];
      const end = this.completeEnd(size);
      if (end <= this.offset) return [];
      const { records } = readWireLog(this.file, { start: this.offset, end });
      this.offset = end;
      if (records.length) this.onRecords(records);
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
