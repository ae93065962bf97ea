import fs from 'node:fs';
import path from 'node:path';
import { naming, namingFile } from '../fs/atomic';
import { writeLogBytes } from '../fs/faults';
import { WIRE_VERSION, type KnownRecord, type NewRecord } from './records';
import { isTransientWriteError, LOG_WRITE_ATTEMPTS, retryWaitMs } from './writeRetry';

/**
 * The one writer of one wire log. Appends are serialized in call order (no interleaving), each
 * record is one `write` of one line, and `sync` (or a durable append) fsyncs. If the file ends
 * with a torn line, the first append starts a fresh line, so the torn bytes stay a bad line of
 * their own and nothing after them is lost. The log is never rewritten in place (only `braid doctor
 * --fix` replaces it whole, under the lease: logQuarantine.ts). A `fence` (the writer
 * lease's check) runs right before each write: when it throws, nothing is written, then or after.
 * A write that fails for a moment (EAGAIN, EINTR, EBUSY) is tried again after a short wait, from
 * the byte where it stopped (writeRetry.ts); a lasting failure makes the writer refuse everything
 * after it.
 */
export class WireLogWriter {
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private failure: Error | undefined;

  private constructor(
    readonly file: string,
    private readonly fd: number,
    private needsNewline: boolean,
    private size: number,
    private readonly fence: (() => void) | undefined,
  ) {}

  /** Opens (creating if needed, with its folder) a log for appending. */
  static open(file: string, options: { fence?: () => void } = {}): WireLogWriter {
    return naming('open the log', file, () => WireLogWriter.openFile(file, options));
  }

  private static openFile(file: string, options: { fence?: () => void }): WireLogWriter {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(file, 'a');
    const size = fs.fstatSync(fd).size;
    let needsNewline = false;
    if (size > 0) {
      const last = Buffer.alloc(1);
      const rfd = fs.openSync(file, 'r');
      try {
        fs.readSync(rfd, last, 0, 1, size - 1);
      } finally {
        fs.closeSync(rfd);
      }
      needsNewline = last[0] !== 10;
    }
    return new WireLogWriter(file, fd, needsNewline, size, options.fence);
  }

  /** Bytes in the file as far as this writer knows (its appends included). */
  get bytes(): number {
    return this.size;
  }

  /** Stamps `v` and `ts`, and serializes a record to its line. */
  static serialize(record: NewRecord, now = Date.now()): { record: KnownRecord; line: string } {
    const full = { v: WIRE_VERSION, ...record, ts: record.ts ?? now } as KnownRecord;
    return { record: full, line: `${JSON.stringify(full)}\n` };
  }

  /**
   * Appends records in order; with `durable` the promise resolves after an fsync. Resolves with
   * the records as written (stamped).
   */
  async append(records: NewRecord | readonly NewRecord[], options: { durable?: boolean } = {}): Promise<KnownRecord[]> {
    return (await this.appendLines(records, options)).map((l) => l.record);
  }

  /** As {@link append}, with where each record's line lies in the file (its offset and length, newline excluded). */
  appendLines(records: NewRecord | readonly NewRecord[], options: { durable?: boolean } = {}): Promise<WrittenLine[]> {
    const list = Array.isArray(records) ? records : [records as NewRecord];
    const now = Date.now();
    const serialized = list.map((r) => WireLogWriter.serialize(r, now));
    return this.enqueue(async () => {
      let text = serialized.map((s) => s.line).join('');
      let offset = this.size;
      if (this.needsNewline) {
        text = `\n${text}`;
        this.needsNewline = false;
        offset++;
      }
      await this.write(Buffer.from(text, 'utf8'));
      if (options.durable) fs.fsyncSync(this.fd);
      return serialized.map((s) => {
        const length = Buffer.byteLength(s.line) - 1;
        const line = { record: s.record, offset, length };
        offset += length + 1;
        return line;
      });
    });
  }

  /** fsyncs everything appended so far. */
  sync(): Promise<void> {
    return this.enqueue(() => fs.fsyncSync(this.fd));
  }

  /**
   * Waits for pending appends, fsyncs and closes. A log whose write failed (or whose fence stopped
   * it) is closed all the same, without a second report of that failure: its appender had it.
   */
  async close(): Promise<void> {
    if (this.closed) return this.chain.catch(() => {});
    this.closed = true;
    await this.chain;
    try {
      if (!this.failure) fs.fsyncSync(this.fd);
    } finally {
      fs.closeSync(this.fd);
    }
  }

  /** True once a write failed for good (or the fence stopped one): the writer refuses everything now. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /**
   * Writes all of `bytes` at the end, once the fence lets it. An error that passes is tried again
   * from the byte it stopped at (so no line is torn or doubled), at most LOG_WRITE_ATTEMPTS times
   * in all, waiting twice as long each time; the fence runs again before each attempt.
   */
  private async write(bytes: Buffer): Promise<void> {
    let written = 0;
    for (let attempt = 1; ; attempt++) {
      this.fence?.();
      try {
        while (written < bytes.length) written += writeLogBytes(this.fd, bytes, written, bytes.length - written);
        break;
      } catch (err) {
        if (!isTransientWriteError(err) || attempt >= LOG_WRITE_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, retryWaitMs(attempt)));
      }
    }
    this.size += bytes.length;
  }

  private enqueue<T>(work: () => T | Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`wire log ${this.file} is closed`));
    const result = this.chain.then(async () => {
      if (this.failure) throw this.failure;
      try {
        return await work();
      } catch (err) {
        // A failed write may have left a partial line: later appends must not follow it blindly.
        // The error names the log (a full disk's ENOSPC names only the system call).
        const named = namingFile('write', this.file, err);
        this.failure = named instanceof Error ? named : new Error(String(named));
        throw this.failure;
      }
    });
    this.chain = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** A record as written, and where its line lies: its offset and length (newline excluded). */
export interface WrittenLine {
  readonly record: KnownRecord;
  readonly offset: number;
  readonly length: number;
}
