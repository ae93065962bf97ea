import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import { openSource, readSourceHead } from '../fs/sourceFile';

/** One line of a source file: its parsed value, or why it could not be read. */
export type SourceLine =
  | { readonly line: number; readonly offset: number; readonly length: number; readonly value: unknown }
  | { readonly line: number; readonly offset: number; readonly length: number; readonly bad: string };

/** What a read of a source file saw: its bytes read and their SHA-256. */
export interface SourceDigest {
  readonly size: number;
  readonly sha256: string;
}

const CHUNK = 1 << 20;
const NEWLINE = 10;
/** A line longer than this is passed over, not held (a file of one endless line cannot fill memory). */
const MAX_LINE = 256 << 20;

/**
 * Reads a JSONL file of a source (opened by {@link openSource}: a regular file inside `root`, up
 * to the size it had when opened) a chunk at a time, memory bounded by the longest line, yielding
 * each line parsed. What real files contain is read, not thrown: a torn last line and a line that
 * is not JSON are `bad`, two JSON objects written on one line (a lost newline) come out as two
 * values, bytes that are not UTF-8 become U+FFFD. `digest` hashes every byte read.
 */
export function* readSourceLines(file: string, root: string, digest?: DigestSink): Generator<SourceLine> {
  const { fd, size } = openSource(file, root);
  try {
    // Reads are synchronous: from the page cache a chunk takes well under a millisecond, and a small file gets a small buffer.
    const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, size)));
    let carry: Buffer[] = []; // the start of a line no chunk has ended yet
    let carried = 0; // its length, kept or not (a line past MAX_LINE is counted, not kept)
    let lineStart = 0; // its offset in the file
    let line = 0;
    for (let position = 0; position < size;) {
      const bytesRead = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - position), position);
      if (bytesRead === 0) break; // cut short since it was opened
      const read = chunk.subarray(0, bytesRead);
      digest?.update(read);
      const readAt = position;
      position += bytesRead;
      let start = 0;
      let end = read.indexOf(NEWLINE);
      if (end !== -1 && carried > 0) {
        // The line the chunks before began ends here.
        line++;
        if (carried + end > MAX_LINE) yield { line, offset: lineStart, length: carried + end, bad: 'a line longer than 256 MB (passed over)' };
        else yield* parseLine(Buffer.concat([...carry, read.subarray(0, end)]), line, lineStart);
        carry = [];
        carried = 0;
        start = end + 1;
        end = read.indexOf(NEWLINE, start);
      }
      for (; end !== -1; end = read.indexOf(NEWLINE, start)) {
        line++;
        yield* parseLine(read.subarray(start, end), line, readAt + start);
        start = end + 1;
      }
      if (start < read.length) {
        if (carried === 0) lineStart = readAt + start;
        if (carried + read.length - start <= MAX_LINE) carry.push(Buffer.from(read.subarray(start)));
        else carry = [];
        carried += read.length - start;
      }
    }
    if (carried > 0) {
      line++;
      // A last line without its newline that parses was written whole; one that does not is torn.
      if (carried > MAX_LINE) yield { line, offset: lineStart, length: carried, bad: 'a line longer than 256 MB (passed over)' };
      else for (const p of parseLine(Buffer.concat(carry), line, lineStart)) yield 'bad' in p ? { ...p, bad: 'torn last line (the tool was writing it)' } : p;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Collects the SHA-256 and size of what a read saw. */
export class DigestSink {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;

  update(data: Buffer): void {
    this.hash.update(data);
    this.bytes += data.length;
  }

  finish(): SourceDigest {
    return { size: this.bytes, sha256: this.hash.digest('hex') };
  }
}

/** The SHA-256 and size of the first `size` bytes of a source file (a re-import checks the source only grew). */
export function digestPrefix(file: string, root: string, size: number): SourceDigest {
  const sink = new DigestSink();
  const open = openSource(file, root);
  try {
    const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, size)));
    for (let position = 0; position < Math.min(size, open.size);) {
      const n = fs.readSync(open.fd, chunk, 0, Math.min(chunk.length, size - position), position);
      if (n === 0) break;
      sink.update(chunk.subarray(0, n));
      position += n;
    }
  } finally {
    fs.closeSync(open.fd);
  }
  return sink.finish();
}

function* parseLine(bytes: Buffer, line: number, offset: number): Generator<SourceLine> {
  const text = bytes.toString('utf8').trim();
  if (!text) return;
  for (const value of valuesOfLine(text))
    yield value === NOT_JSON ? { line, offset, length: bytes.length, bad: 'not JSON' } : { line, offset, length: bytes.length, value };
}

const NOT_JSON = Symbol('not JSON');

/** The JSON values of one line: one, or each of `{…}{…}` (a lost newline); NOT_JSON for what does not parse. */
export function valuesOfLine(text: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    // maybe two objects on one line
  }
  const parts = splitObjects(text);
  if (parts.length < 2) return [NOT_JSON];
  return parts.map((part) => {
    try {
      return JSON.parse(part) as unknown;
    } catch {
      return NOT_JSON;
    }
  });
}

/** Splits `{…}{…}` (objects written without a newline between them) at the top-level brace where one ends. */
function splitObjects(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) {
        parts.push(text.slice(start, i + 1));
        start = i + 1;
        while (start < text.length && /\s/.test(text[start] ?? '')) start++;
        i = start - 1;
      }
    }
  }
  if (start < text.length) parts.push(text.slice(start));
  return parts;
}

/** The first line of a source file (up to `limit` bytes), parsed; null when it is not a JSON object or cannot be read. */
export function firstRecord(file: string, root: string, limit = 4 << 20): Record<string, unknown> | null {
  const head = readSourceHead(file, root, limit);
  if (!head) return null;
  const end = head.indexOf(NEWLINE);
  try {
    const value: unknown = JSON.parse(head.subarray(0, end === -1 ? head.length : end).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
