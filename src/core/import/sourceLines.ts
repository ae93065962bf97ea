import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';

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

/**
 * Reads a JSONL file a chunk at a time (memory bounded by the longest line, never the file),
 * yielding each line parsed. What real files contain is read, not thrown: a torn last line and
 * a line that is not JSON are `bad`, two JSON objects written on one line (a lost newline) come
 * out as two values, bytes that are not UTF-8 become U+FFFD. `digest` hashes every byte read.
 */
export async function* readSourceLines(file: string, digest?: DigestSink): AsyncGenerator<SourceLine> {
  const fd = fs.openSync(file, 'r');
  try {
    // Reads are synchronous (from the page cache, a chunk takes well under a millisecond) and the
    // generator yields between lines: no thread hop per read, and a small file gets a small buffer.
    const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, fs.fstatSync(fd).size + 1)));
    let carry: Buffer[] = []; // the start of a line no chunk has ended yet
    let offset = 0; // of carry's first byte in the file
    let line = 0;
    for (;;) {
      const bytesRead = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      const read = chunk.subarray(0, bytesRead);
      digest?.update(read);
      if (read.indexOf(NEWLINE) === -1) {
        carry.push(Buffer.from(read)); // a long line: joined once, when it ends
        continue;
      }
      const buffer = carry.length ? Buffer.concat([...carry, read]) : read;
      let start = 0;
      for (let end = buffer.indexOf(NEWLINE, start); end !== -1; end = buffer.indexOf(NEWLINE, start)) {
        line++;
        yield* parseLine(buffer.subarray(start, end), line, offset + start);
        start = end + 1;
      }
      offset += start;
      carry = start < buffer.length ? [Buffer.from(buffer.subarray(start))] : [];
    }
    if (carry.length) {
      line++;
      const parsed = [...parseLine(Buffer.concat(carry), line, offset)];
      // A last line without its newline that parses was written whole; one that does not is torn.
      yield* parsed.map((p) => ('bad' in p ? { ...p, bad: 'torn last line (the tool was writing it)' } : p));
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

/** The SHA-256 and size of the first `size` bytes of a file (a re-import checks the source only grew). */
export async function digestPrefix(file: string, size: number): Promise<SourceDigest> {
  const sink = new DigestSink();
  const stream = fs.createReadStream(file, { start: 0, end: Math.max(0, size - 1), highWaterMark: CHUNK });
  if (size > 0) for await (const chunk of stream) sink.update(chunk as Buffer);
  else stream.destroy();
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

/** The first line of a file (up to `limit` bytes), parsed; null when it is not a JSON object. */
export function firstRecord(file: string, limit = 4 << 20): Record<string, unknown> | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const chunks: Buffer[] = [];
    for (let read = 0; read < limit;) {
      const chunk = Buffer.alloc(65536);
      const n = fs.readSync(fd, chunk, 0, chunk.length, read);
      if (n === 0) break;
      const end = chunk.subarray(0, n).indexOf(NEWLINE);
      chunks.push(chunk.subarray(0, end === -1 ? n : end));
      if (end !== -1) break;
      read += n;
    }
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
