import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Lines read from a file, without loading more of it than the lines asked for. */
export interface LineRange {
  /** The lines asked for (each cut at `lineChars`, with a note), without their newlines. */
  readonly lines: string[];
  /** How many lines follow the range: exact when the file was read to its end, else undefined. */
  readonly more: number | undefined;
}

const CHUNK = 64 * 1024;

/**
 * Reads lines `start` (0-based) to `start + count` of an open file of `size` bytes, a chunk at a
 * time: a line longer than `lineChars` is cut, and the memory used is a chunk plus the lines kept,
 * whatever the file's size. A newline ends a line; a last line without one is a line too. After
 * the range it goes on counting lines only until it has read `countUpTo` bytes.
 */
export function readLineRange(fd: number, size: number, start: number, count: number, lineChars: number, countUpTo: number): LineRange {
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(CHUNK);
  const lines: string[] = [];
  const end = start + count;
  let index = 0; // the line being read
  let current = ''; // its text, when it is in the range
  let length = 0; // its length so far
  let after = 0; // lines after the range
  const finish = () => {
    if (index >= start && index < end) lines.push(length > lineChars ? `${current} [line cut]` : current);
    else if (index >= end) after++;
    index++;
    current = '';
    length = 0;
  };
  for (let position = 0; ;) {
    const n = fs.readSync(fd, buffer, 0, CHUNK, position);
    position += n;
    const text = n > 0 ? decoder.write(buffer.subarray(0, n)) : decoder.end();
    for (let from = 0; ;) {
      const nl = text.indexOf('\n', from);
      const piece = nl < 0 ? text.slice(from) : text.slice(from, nl);
      if (index >= start && index < end && current.length < lineChars) current += piece.slice(0, lineChars - current.length);
      length += piece.length;
      if (nl < 0) break;
      finish();
      from = nl + 1;
    }
    if (n === 0) break;
    if (index >= end && position >= countUpTo && position < size) return { lines, more: undefined };
  }
  if (length > 0) finish();
  return { lines, more: after };
}
