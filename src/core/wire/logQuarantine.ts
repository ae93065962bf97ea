import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir, naming, replaceFileAtomic } from '../fs/atomic';
import { fileIdentity } from '../fs/probe';
import { MAX_LINE_BYTES, readFully, walkLines, type WalkSizes } from './lineWalk';
import { judgeLine, type BadLine } from './wireReader';

/** Why a line was taken out of a log: a reader's reason, or `torn` for a last line cut short (no newline). */
export type QuarantineReason = BadLine['reason'] | 'torn';

/** A line of a log that no reader can read, and where it is. */
export interface UnreadableLine {
  /** 1-based, blank lines counted. */
  readonly line: number;
  /** The byte offset of its first byte. */
  readonly offset: number;
  /** Its bytes, the newline excluded. */
  readonly length: number;
  /** Whether a newline ended it (a torn last line has none). */
  readonly newline: boolean;
  readonly reason: QuarantineReason;
}

/** One line of a quarantine file: a line taken out of the log beside it, where it was, when, and its bytes. */
export interface QuarantineEntry extends UnreadableLine {
  readonly v: 1;
  /** When the repair that took it out ran (ms since the epoch); the entries of one repair share it. */
  readonly repairedAt: number;
  /** The log's size before that repair: `offset` and `line` are places in that log. */
  readonly logBytes: number;
  /** Its bytes exactly: as text when they are valid UTF-8, else in base64. */
  readonly text?: string;
  readonly base64?: string;
}

/** What taking the unreadable lines out of one log did. */
export interface QuarantineResult {
  readonly lines: number;
  /** Bytes taken out of the log, newlines included. */
  readonly bytes: number;
  readonly quarantineFile: string;
}

/** The quarantine file of a log: `wire.quarantine.jsonl` beside `wire.jsonl`. */
export function quarantineFileOf(log: string): string {
  return path.join(path.dirname(log), `${path.basename(log, '.jsonl')}.quarantine.jsonl`);
}

const COPY_BYTES = 1024 * 1024;

/**
 * The lines of bytes [0, size) of an open log that readers skip, by the readers' own rule
 * (judgeLine): lines that are not records, lines too long to hold, and a last line without a
 * newline that does not parse. Blank lines and records of unknown types or newer versions are
 * read (or passed over) and are not listed.
 */
export function findUnreadable(fd: number, size: number, sizes: WalkSizes = {}): UnreadableLine[] {
  const found: UnreadableLine[] = [];
  let line = 0;
  let overlong: { line: number; offset: number } | undefined; // a line too long to hold, its end not met yet
  const endOverlong = (end: number, newline: boolean) => {
    if (overlong) found.push({ ...overlong, length: end - overlong.offset, newline, reason: 'too-long' });
    overlong = undefined;
  };
  const walk = walkLines(
    fd,
    0,
    size,
    {
      line: (buf, start, end, offset) => {
        endOverlong(offset - 1, true);
        line++;
        const verdict = judgeLine(buf, start, end);
        if ('bad' in verdict) found.push({ line, offset, length: end - start, newline: true, reason: verdict.bad });
      },
      overlong: (offset) => {
        overlong = { line: ++line, offset };
      },
    },
    sizes,
  );
  if (walk.overlongTail) endOverlong(size, false);
  else endOverlong((walk.tail?.offset ?? size) - 1, true);
  const tail = walk.tail;
  if (tail && 'bad' in judgeLine(tail.buf, tail.start, tail.end))
    found.push({ line: line + 1, offset: tail.offset, length: tail.end - tail.start, newline: false, reason: 'torn' });
  return found;
}

/**
 * Takes the unreadable lines (findUnreadable) out of a log, for `braid doctor --fix`: each goes
 * to the log's quarantine file, appended and fsynced, and then a copy of the log without them
 * (temp file, fsync) is renamed over it. A crash leaves the old log or the new one, never a mix;
 * one between the two leaves the old log with its lines also in the quarantine file, and the
 * next repair appends them again. The caller holds the session's writer lease, so nothing is
 * appended meanwhile; `fence` (its check) runs before each write, and the rename happens only
 * while the log is still the file that was read. Returns undefined when every line reads.
 */
export function quarantineUnreadable(log: string, options: { fence: () => void; now?: number; sizes?: WalkSizes }): QuarantineResult | undefined {
  const fd = naming('read', log, () => fs.openSync(log, 'r'));
  try {
    const read = fs.fstatSync(fd);
    const lines = findUnreadable(fd, read.size, options.sizes);
    if (lines.length === 0) return undefined;
    const quarantineFile = quarantineFileOf(log);
    const stamp = { repairedAt: options.now ?? Date.now(), logBytes: read.size };
    const stillRead = () => {
      options.fence();
      const now = fs.statSync(log);
      if (fileIdentity(now) !== fileIdentity(read) || now.size !== read.size)
        throw new Error(`${log} changed while its unreadable lines were being taken out; it was left as it is: run braid doctor --fix again`);
    };
    replaceFileAtomic(
      log,
      (out) => {
        copyAllBut(fd, out, read.size, lines);
        // The lines are kept, durably, before the log without them replaces the one with them.
        stillRead();
        appendEntries(quarantineFile, fd, lines, stamp, options.sizes?.maxLineBytes ?? MAX_LINE_BYTES);
      },
      stillRead,
    );
    const bytes = lines.reduce((sum, l) => sum + l.length + (l.newline ? 1 : 0), 0);
    return { lines: lines.length, bytes, quarantineFile };
  } finally {
    fs.closeSync(fd);
  }
}

/** Copies bytes [0, size) of `from` to `to`, all but the lines `skip` (in file order) and their newlines. */
function copyAllBut(from: number, to: number, size: number, skip: readonly UnreadableLine[]): void {
  let at = 0;
  for (const line of skip) {
    copyRange(from, to, at, line.offset);
    at = line.offset + line.length + (line.newline ? 1 : 0);
  }
  copyRange(from, to, at, size);
}

function copyRange(from: number, to: number, start: number, end: number): void {
  const buffer = Buffer.allocUnsafe(Math.min(COPY_BYTES, Math.max(1, end - start)));
  for (let at = start; at < end;) {
    const n = fs.readSync(from, buffer, 0, Math.min(buffer.length, end - at), at);
    if (n === 0) throw new Error(`the log ended at byte ${at} while it was being copied`);
    writeAll(to, buffer.subarray(0, n));
    at += n;
  }
}

/**
 * Appends one entry per line to the quarantine file (created if needed; a torn last entry of
 * an earlier repair is ended first, so it stays a line of its own) and fsyncs it. A line longer
 * than `holdBytes` is written in base64 a piece at a time, never held whole.
 */
function appendEntries(file: string, log: number, lines: readonly UnreadableLine[], stamp: { repairedAt: number; logBytes: number }, holdBytes: number): void {
  naming('write', file, () => {
    const existed = fs.existsSync(file);
    const out = fs.openSync(file, 'a+');
    try {
      const size = fs.fstatSync(out).size;
      if (size > 0 && readRange(out, size - 1, 1)[0] !== 10) writeAll(out, Buffer.from('\n'));
      for (const line of lines) {
        const head = { v: 1, ...stamp, ...line };
        if (line.length <= holdBytes) {
          const bytes = readRange(log, line.offset, line.length);
          const body = isUtf8(bytes) ? { text: bytes.toString('utf8') } : { base64: bytes.toString('base64') };
          writeAll(out, Buffer.from(`${JSON.stringify({ ...head, ...body })}\n`));
        } else {
          writeAll(out, Buffer.from(`${JSON.stringify(head).slice(0, -1)},"base64":"`));
          const piece = 3 * COPY_BYTES; // a multiple of 3: the pieces' base64 joins without padding between them
          for (let at = 0; at < line.length; at += piece)
            writeAll(out, Buffer.from(readRange(log, line.offset + at, Math.min(piece, line.length - at)).toString('base64')));
          writeAll(out, Buffer.from('"}\n'));
        }
      }
      fs.fsyncSync(out);
    } finally {
      fs.closeSync(out);
    }
    if (!existed) fsyncDir(path.dirname(file));
  });
}

function readRange(fd: number, offset: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  readFully(fd, buffer, 0, length, offset);
  return buffer;
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length;) done += fs.writeSync(fd, bytes, done, bytes.length - done);
}
