import fs from 'node:fs';

const CHUNK_BYTES = 256 * 1024;

/**
 * Visits the lines of a file from its end backwards, newest first, reading it in chunks so that
 * what is read is what is visited. `visit` gets each non-empty line's text and the byte offset of
 * its start, and returns false to stop. Starts at byte `end` (a line start), or at the file's end
 * when `end` is past it: an offset can come from a page cursor a webview sent back, and bytes the
 * file does not have are never visited. Returns the bytes read.
 */
export function scanBackward(fd: number, end: number, visit: (line: string, offset: number) => boolean): number {
  let position = Math.min(end, fs.fstatSync(fd).size);
  let bytesRead = 0;
  // The head of the last chunk read: the end of a line that starts further back.
  let carry: Buffer = Buffer.alloc(0);
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  while (position > 0 || carry.length > 0) {
    let data: Buffer;
    if (position > 0) {
      const size = Math.min(CHUNK_BYTES, position);
      position -= size;
      readExactly(fd, buffer, size, position);
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
    for (let i = starts.length - 1; i >= 0; i--) {
      const start = starts[i]!;
      const next = i + 1 < starts.length ? starts[i + 1]! : data.length;
      const stop = next > start && data[next - 1] === 10 ? next - 1 : next;
      if (stop <= start) continue;
      if (!visit(data.toString('utf8', start, stop), position + start)) return bytesRead;
    }
  }
  return bytesRead;
}

/** Reads `size` bytes at `position` into the start of `buffer`; throws if the file ends first (it shrank while read). */
function readExactly(fd: number, buffer: Buffer, size: number, position: number): void {
  for (let got = 0; got < size;) {
    const n = fs.readSync(fd, buffer, got, size - got, position + got);
    if (n === 0) throw new Error(`the file ended at byte ${position + got} while read backwards (it was cut short)`);
    got += n;
  }
}

/** Opens a file for reading; undefined when it does not exist. */
export function openIfExists(file: string): number | undefined {
  try {
    return fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
