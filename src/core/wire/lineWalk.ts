import fs from 'node:fs';

/** Lines longer than this are skipped as bad instead of being buffered whole. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** What a walk over a file's lines does with them. */
export interface LineVisitor {
  /** Told of each stretch of whole lines before its lines (bytes [start, end) of `buf`, newlines included), e.g. to check them at once. */
  readonly region?: (buf: Buffer, start: number, end: number) => void;
  /** A whole line: bytes [start, end) of `buf`, its newline excluded, beginning at file offset `offset`. Returning false ends the walk after it. */
  readonly line: (buf: Buffer, start: number, end: number, offset: number) => boolean | void;
  /** A line longer than MAX_LINE_BYTES begins at `offset`; its bytes are passed over to its newline. */
  readonly overlong: (offset: number) => void;
  /**
   * Every byte walked, in order and once: bytes [start, end) of `buf`, beginning at file offset
   * `offset`, were read and their lines handed out (an overlong line's bytes too). Bytes of a line
   * still unended wait for its end; a walk that stops passes up to the stopping line's newline.
   */
  readonly passed?: (buf: Buffer, start: number, end: number, offset: number) => void;
}

/** Sizes of a walk: the chunk read at a time and the longest line held (smaller ones let tests cross every boundary). */
export interface WalkSizes {
  readonly chunkBytes?: number;
  readonly maxLineBytes?: number;
}

/** Where a walk ended. */
export interface LineWalk {
  /** The bytes after the range's last newline (a line cut short, or one missing only its newline): not passed. */
  readonly tail: { readonly buf: Buffer; readonly start: number; readonly end: number; readonly offset: number } | undefined;
  /** The range ends inside a line longer than MAX_LINE_BYTES. */
  readonly overlongTail: boolean;
  /** The file offset just after the newline of the line that stopped the walk, if one did. */
  readonly stoppedAt: number | undefined;
}

/**
 * Walks the lines of bytes [from, to) of an open file, reading a chunk at a time. A line that
 * spans chunks is moved to the front of the buffer and the next chunk read after it (the buffer
 * grows for a long line, up to MAX_LINE_BYTES), so no bytes are concatenated.
 */
export function walkLines(fd: number, from: number, to: number, visitor: LineVisitor, sizes: WalkSizes = {}): LineWalk {
  const { chunkBytes = CHUNK_BYTES, maxLineBytes = MAX_LINE_BYTES } = sizes;
  let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(chunkBytes, to - from)));
  let held = 0; // bytes at the front of `buffer`: the beginning of a line not yet ended
  let bufferOffset = from; // the file offset of buffer[0]
  let position = from;
  let skipping = false; // inside an overlong line
  while (position < to) {
    if (held === buffer.length) {
      if (held > maxLineBytes) {
        visitor.overlong(bufferOffset);
        visitor.passed?.(buffer, 0, held, bufferOffset);
        skipping = true;
        bufferOffset += held;
        held = 0;
      } else {
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxLineBytes + 1));
        buffer.copy(grown, 0, 0, held);
        buffer = grown;
      }
    }
    const read = fs.readSync(fd, buffer, held, Math.min(buffer.length - held, to - position), position);
    if (read === 0) break;
    position += read;
    const filled = held + read;
    const view = filled === buffer.length ? buffer : buffer.subarray(0, filled);
    let lineStart = 0;
    if (skipping) {
      const nl = view.indexOf(10, held);
      if (nl < 0) {
        visitor.passed?.(view, 0, filled, bufferOffset);
        bufferOffset += filled;
        held = 0;
        continue;
      }
      skipping = false; // this newline ends the overlong line
      lineStart = nl + 1;
    }
    const last = view.lastIndexOf(10);
    if (last >= lineStart) {
      visitor.region?.(view, lineStart, last + 1);
      // The held bytes hold no newline: the first one is in what was just read.
      for (let nl = view.indexOf(10, Math.max(lineStart, held)); nl >= 0 && nl <= last; nl = view.indexOf(10, lineStart)) {
        const start = lineStart;
        lineStart = nl + 1;
        if (visitor.line(view, start, nl, bufferOffset + start) === false) {
          visitor.passed?.(view, 0, lineStart, bufferOffset);
          return { tail: undefined, overlongTail: false, stoppedAt: bufferOffset + lineStart };
        }
      }
    }
    if (lineStart > 0) {
      visitor.passed?.(view, 0, lineStart, bufferOffset);
      buffer.copyWithin(0, lineStart, filled);
    }
    bufferOffset += lineStart;
    held = filled - lineStart;
  }
  if (skipping) return { tail: undefined, overlongTail: true, stoppedAt: undefined };
  return { tail: held > 0 ? { buf: buffer, start: 0, end: held, offset: bufferOffset } : undefined, overlongTail: false, stoppedAt: undefined };
}

/**
 * Walks the lines of bytes held in memory in pieces (a log as a pipe gave it), under walkLines'
 * contract but for `passed` and for stopping (a walk goes to the end): a line inside one piece is
 * handed out in place, one that spans pieces is first copied into a buffer of its own, and a line
 * longer than `maxLineBytes` is skipped as overlong (the tail too, once more than that was held).
 */
export function walkPieces(pieces: readonly Buffer[], visitor: Omit<LineVisitor, 'passed'>, maxLineBytes = MAX_LINE_BYTES): Omit<LineWalk, 'stoppedAt'> {
  let carry: Buffer[] = []; // the beginning of a line not yet ended, from earlier pieces
  let carried = 0;
  let carryOffset = 0;
  let skipping = false; // inside an overlong line
  let offset = 0; // the offset of the piece's first byte
  /** Holds bytes of the unended line; past `maxLineBytes` of it, the line is overlong. */
  const hold = (bytes: Buffer): void => {
    carry.push(bytes);
    carried += bytes.length;
    if (carried <= maxLineBytes) return;
    visitor.overlong(carryOffset);
    carry = [];
    carried = 0;
    skipping = true;
  };
  for (const piece of pieces) {
    let lineStart = 0;
    if (carried > 0 || skipping) {
      const nl = piece.indexOf(10);
      if (nl < 0) {
        if (!skipping) hold(piece);
        offset += piece.length;
        continue;
      }
      lineStart = nl + 1;
      if (!skipping && carried + nl > maxLineBytes) visitor.overlong(carryOffset);
      else if (!skipping) {
        const line = Buffer.concat([...carry, piece.subarray(0, lineStart)]);
        visitor.region?.(line, 0, line.length);
        visitor.line(line, 0, line.length - 1, carryOffset);
      }
      carry = [];
      carried = 0;
      skipping = false; // this newline ends the line
    }
    const last = piece.lastIndexOf(10);
    if (last >= lineStart) {
      visitor.region?.(piece, lineStart, last + 1);
      for (let nl = piece.indexOf(10, lineStart); nl >= 0 && nl <= last; nl = piece.indexOf(10, lineStart)) {
        const start = lineStart;
        lineStart = nl + 1;
        if (nl - start > maxLineBytes) visitor.overlong(offset + start);
        else visitor.line(piece, start, nl, offset + start);
      }
    }
    if (lineStart < piece.length) {
      carryOffset = offset + lineStart;
      hold(piece.subarray(lineStart));
    }
    offset += piece.length;
  }
  if (skipping) return { tail: undefined, overlongTail: true };
  const tail = carried > 0 ? Buffer.concat(carry) : undefined;
  return { tail: tail && { buf: tail, start: 0, end: tail.length, offset: carryOffset }, overlongTail: false };
}

/**
 * Walks the lines of bytes [0, end) of an open file from the last backwards, newest first,
 * reading a chunk at a time from the end, so what is read is what is visited. `visit` gets each
 * non-empty line (bytes [start, lineEnd) of `buf`, newline excluded) and its file offset, and
 * returns false to stop; a line longer than MAX_LINE_BYTES is passed over. Returns the bytes read.
 */
export function walkLinesBackward(
  fd: number,
  end: number,
  visit: (buf: Buffer, start: number, lineEnd: number, offset: number) => boolean | void,
  sizes: WalkSizes = {},
): number {
  const { chunkBytes = CHUNK_BYTES, maxLineBytes = MAX_LINE_BYTES } = sizes;
  let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(chunkBytes, end)));
  let held = 0; // bytes at the end of `buffer`: the end of a line that begins further back
  let position = end; // the file offset of the first held byte (bytes before it are unread)
  let skipping = false; // inside an overlong line
  let bytesRead = 0;
  while (position > 0) {
    if (held === buffer.length) {
      if (held > maxLineBytes) {
        skipping = true;
        held = 0;
      } else {
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxLineBytes + 1));
        buffer.copy(grown, grown.length - held, buffer.length - held);
        buffer = grown;
      }
    }
    const n = Math.min(buffer.length - held, position);
    const from = buffer.length - held - n; // the chunk goes just before the held bytes
    position -= n;
    readFully(fd, buffer, from, n, position);
    bytesRead += n;
    let cursor = buffer.length; // the end (exclusive) of the next line to hand out
    if (skipping) {
      const nl = buffer.lastIndexOf(10, buffer.length - 1);
      if (nl < from) continue; // the whole chunk is inside the overlong line
      skipping = false;
      cursor = nl;
    }
    while (cursor > from) {
      const nl = buffer.lastIndexOf(10, cursor - 1);
      if (nl < from) break;
      if (cursor > nl + 1 && visit(buffer, nl + 1, cursor, position + (nl + 1 - from)) === false) return bytesRead;
      cursor = nl;
    }
    if (position === 0) {
      if (cursor > from) visit(buffer, from, cursor, 0);
      return bytesRead;
    }
    held = cursor - from;
    buffer.copyWithin(buffer.length - held, from, cursor);
  }
  return bytesRead;
}

/** Reads `length` bytes at file offset `position` into `buffer` at `at`; a file that ends first is an error. */
export function readFully(fd: number, buffer: Buffer, at: number, length: number, position: number): void {
  for (let done = 0; done < length;) {
    const n = fs.readSync(fd, buffer, at + done, length - done, position + done);
    if (n === 0) throw new Error(`the file ended at byte ${position + done} while it was being read`);
    done += n;
  }
}
