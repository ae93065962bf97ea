import fs from 'node:fs';
import path from 'node:path';
import { applyRecord, emptyFold, type LogFold } from '../format/logFold';
import { recordFromHead } from '../format/headFold';
import { walkLines } from '../wire/lineWalk';
import { isKnown, parseRecordLine, type ForkedRecord, type WireRecord } from '../wire/records';
import { scanWireLog } from '../wire/wireReader';

/** Where a record sits in a main log: the byte offset and its time. */
export interface LogPoint {
  readonly offset: number;
  readonly ts: number;
}

/**
 * The turn boundaries of a main log met in file order: where each effective turn ended (the byte
 * after its `turn_end`) and began, a rewind dropping the turns it drops; and the `forked` records.
 */
export class TurnBounds {
  readonly ends = new Map<number, LogPoint>();
  readonly begun = new Map<number, LogPoint>();
  readonly forked: Array<{ readonly offset: number; readonly from: ForkedRecord['from'] }> = [];
  rewinds = 0;
  /** The lowest turn a rewind went back to (Infinity: none). */
  lowestRewind = Number.POSITIVE_INFINITY;

  add(record: WireRecord, offset: number, length: number): void {
    if (!isKnown(record)) return;
    if (record.t === 'rewind') {
      this.rewinds++;
      this.lowestRewind = Math.min(this.lowestRewind, record.toTurn);
      for (const t of [...this.ends.keys()]) if (t >= record.toTurn) this.ends.delete(t);
      for (const t of [...this.begun.keys()]) if (t >= record.toTurn) this.begun.delete(t);
    } else if (record.t === 'turn_begin') this.begun.set(record.turn, { offset, ts: record.ts });
    else if (record.t === 'turn_end') this.ends.set(record.turn, { offset: offset + length + 1, ts: record.ts });
    else if (record.t === 'forked') this.forked.push({ offset, from: record.from });
  }

  /** The first effective turn that began and has not ended, if any. */
  open(): (LogPoint & { turn: number }) | undefined {
    const first = [...this.begun.keys()].filter((t) => !this.ends.has(t)).sort((a, b) => a - b)[0];
    return first === undefined ? undefined : { turn: first, ...this.begun.get(first)! };
  }

  /** The `from` of the first `forked` record at or after `offset`. */
  forkedFromAfter(offset: number): ForkedRecord['from'] | undefined {
    return this.forked.find((f) => f.offset >= offset)?.from;
  }
}

/** The turn boundaries of a main log's bytes [start, end), from a scan that parses those records only. */
export function scanTurnBounds(logFile: string, start: number, end: number): TurnBounds {
  const bounds = new TurnBounds();
  scanWireLog(logFile, (record, offset, length) => bounds.add(record, offset, length), { start, end, only: ['turn_begin', 'turn_end', 'rewind', 'forked'] });
  return bounds;
}

/** A prefix of a main log copied and folded. */
export interface FoldedPrefix {
  /** The fold of the records copied: the fork's own fold, before what the fork appends. */
  readonly fold: LogFold;
  readonly bounds: TurnBounds;
  /** Bytes copied. */
  readonly bytes: number;
  /** Whether `stop` ended the copy (else it ran to the end of the range). */
  readonly stopped: boolean;
}

/**
 * Copies a main log's bytes from its start to `end` into the open file `dst` from its start (not
 * synced), folding each record as it passes and noting the turn boundaries, in one read of the
 * source. `stop`,
 * asked after each record, ends the copy just after that record's line. Without it, a last line
 * missing its newline is copied when it is a record (or blank) and left out when it is torn, as a
 * crash leaves it.
 *
 * A tool result, the bulk of a log, is folded from its line's head and end without being parsed
 * (it counts as a message of its turn and nothing else; see lineHead.ts), and so are the records
 * of which the fold takes only the turn. The one difference from a full read: such a line that
 * begins and ends as the writer writes it but is damaged in between counts where a full read would
 * skip it (`braid doctor` then finds the row out of date and reads the log again).
 */
export function copyAndFold(source: string, dst: number, end: number, stop?: (record: WireRecord) => boolean): FoldedPrefix {
  const fold = emptyFold();
  const bounds = new TurnBounds();
  const fd = fs.openSync(source, 'r');
  let bytes = 0;
  try {
    const take = (record: WireRecord, offset: number, length: number): boolean => {
      applyRecord(fold, record);
      bounds.add(record, offset, length);
      return stop?.(record) !== true;
    };
    const walk = walkLines(fd, 0, end, {
      line: (buf, start, lineEnd, offset) => {
        const counted = recordFromHead(buf, start, lineEnd);
        if (counted) {
          applyRecord(fold, counted);
          return true;
        }
        const parsed = parseRecordLine(buf.toString('utf8', start, lineEnd));
        return 'record' in parsed ? take(parsed.record, offset, lineEnd - start) : true;
      },
      overlong: () => undefined,
      passed: (buf, start, passedEnd) => {
        writeAt(dst, buf, start, passedEnd, bytes);
        bytes += passedEnd - start;
      },
    });
    const tail = walk.tail;
    if (tail && !stop) {
      const text = tail.buf.toString('utf8', tail.start, tail.end);
      const parsed = parseRecordLine(text);
      if ('record' in parsed) take(parsed.record, tail.offset, tail.end - tail.start);
      if ('record' in parsed || !text.trim()) {
        writeAt(dst, tail.buf, tail.start, tail.end, bytes);
        bytes += tail.end - tail.start;
      }
    }
    return { fold, bounds, bytes, stopped: walk.stoppedAt !== undefined };
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes bytes [start, end) of `buf` at file offset `position`. */
function writeAt(fd: number, buf: Buffer, start: number, end: number, position: number): void {
  for (let at = start; at < end;) at += fs.writeSync(fd, buf, at, end - at, position + at - start);
}

/** Copies the first `bytes` of a file (a prefix of complete lines), synced. */
export function copyPrefix(from: string, to: string, bytes: number): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const src = fs.openSync(from, 'r');
  const dst = fs.openSync(to, 'w');
  try {
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(4 * 1024 * 1024, bytes)));
    for (let pos = 0; pos < bytes;) {
      const n = fs.readSync(src, buffer, 0, Math.min(buffer.length, bytes - pos), pos);
      if (n === 0) break;
      writeAt(dst, buffer, 0, n, pos);
      pos += n;
    }
    fs.fsyncSync(dst);
  } finally {
    fs.closeSync(src);
    fs.closeSync(dst);
  }
}
