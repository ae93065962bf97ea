import fs from 'node:fs';
import { isKnown, parseRecordLine, type MessageRecord } from './records';

/** Where an older page ends: a byte offset (a line start), and the lowest rewind seen after it. */
export interface PageCursor {
  readonly offset: number;
  readonly minRewind: number;
}

export interface MessagePage {
  /** Effective messages, oldest first. */
  readonly messages: MessageRecord[];
  /** Pass it back for the page before this one; undefined when this page reaches the start. */
  readonly before: PageCursor | undefined;
  /** Bytes read to build the page. */
  readonly bytesRead: number;
}

/** Messages a page holds by default (DESIGN.md 7). */
export const PAGE_SIZE = 80;
const CHUNK_BYTES = 256 * 1024;

/**
 * Reads the newest `limit` effective messages by reading the log from its end, so opening a huge
 * session costs the page, not the file. A record is effective unless a rewind later in the file
 * dropped its turn: scanning backwards, a message of turn t is kept iff t is below every
 * `rewind.toTurn` seen so far. Lines that do not parse (a torn tail among them) are skipped.
 */
export function readNewestPage(file: string, limit = PAGE_SIZE, before?: PageCursor): MessagePage {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { messages: [], before: undefined, bytesRead: 0 };
    throw err;
  }
  try {
    let position = before ? before.offset : fs.fstatSync(fd).size;
    let minRewind = before ? before.minRewind : Number.POSITIVE_INFINITY;
    const found: MessageRecord[] = [];
    let oldestFound = -1;
    let bytesRead = 0;
    // The head of the last chunk read: the end of a line that starts further back.
    let carry: Buffer = Buffer.alloc(0);
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    while (found.length < limit && (position > 0 || carry.length > 0)) {
      let data: Buffer;
      if (position > 0) {
        const size = Math.min(CHUNK_BYTES, position);
        position -= size;
        fs.readSync(fd, buffer, 0, size, position);
        bytesRead += size;
        data = carry.length ? Buffer.concat([buffer.subarray(0, size), carry]) : buffer.subarray(0, size);
      } else {
        data = carry;
      }
      // Before the first newline (unless at the file's start) is the tail of an earlier line.
      let linesFrom = 0;
      if (position > 0) {
        const firstNewline = data.indexOf(10);
        if (firstNewline < 0) {
          carry = Buffer.from(data);
          continue;
        }
        linesFrom = firstNewline + 1;
        carry = Buffer.from(data.subarray(0, firstNewline));
      } else {
        carry = Buffer.alloc(0);
      }
      const starts: number[] = [];
      for (let s = linesFrom; s < data.length;) {
        starts.push(s);
        const nl = data.indexOf(10, s);
        s = nl < 0 ? data.length : nl + 1;
      }
      for (let i = starts.length - 1; i >= 0 && found.length < limit; i--) {
        const start = starts[i]!;
        const next = i + 1 < starts.length ? starts[i + 1]! : data.length;
        const end = next > start && data[next - 1] === 10 ? next - 1 : next;
        if (end <= start) continue;
        const parsed = parseRecordLine(data.toString('utf8', start, end));
        if (!('record' in parsed) || !isKnown(parsed.record)) continue;
        const r = parsed.record;
        if (r.t === 'rewind') minRewind = Math.min(minRewind, r.toTurn);
        else if (r.t === 'message' && r.turn < minRewind) {
          found.push(r);
          oldestFound = position + start;
        }
      }
    }
    found.reverse();
    const more = found.length >= limit && oldestFound > 0;
    return { messages: found, before: more ? { offset: oldestFound, minRewind } : undefined, bytesRead };
  } finally {
    fs.closeSync(fd);
  }
}
