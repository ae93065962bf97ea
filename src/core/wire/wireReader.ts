import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import { parseRecordLine, WIRE_VERSION, type BadLineReason, type WireRecord } from './records';

/** Lines longer than this are skipped as bad instead of being buffered whole. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;
const MAX_REPORTED_BAD = 50;

/** A line that could not be read, by 1-based line number and byte offset. */
export interface BadLine {
  readonly line: number;
  readonly offset: number;
  readonly reason: BadLineReason | 'too-long' | 'invalid-utf8';
}

/** What a scan found besides the records: everything a reader tolerated. */
export interface ScanReport {
  bytes: number;
  lines: number;
  records: number;
  blankLines: number;
  unknownRecords: number;
  /** Records whose `v` is higher than this version knows (read as far as known). */
  newerRecords: number;
  /** Lines skipped; the first few listed in `bad`. */
  badLines: number;
  bad: BadLine[];
  /** Lines with invalid UTF-8 that still parsed (bad bytes became U+FFFD). */
  invalidUtf8Lines: number;
  /** The last line has no newline and does not parse: a write cut short by a crash. */
  tornTail: boolean;
  tornBytes: number;
  /** The file does not end with a newline (torn or not); the next append must start a fresh line. */
  unterminated: boolean;
}

export function emptyReport(): ScanReport {
  return {
    bytes: 0,
    lines: 0,
    records: 0,
    blankLines: 0,
    unknownRecords: 0,
    newerRecords: 0,
    badLines: 0,
    bad: [],
    invalidUtf8Lines: 0,
    tornTail: false,
    tornBytes: 0,
    unterminated: false,
  };
}

/** Which part of a log a scan reads: bytes `start` to `end`, records of the types `only` (all when absent). */
export interface ScanOptions {
  readonly start?: number;
  readonly end?: number;
  readonly only?: readonly string[];
}

/** Called for every readable record with its byte offset and length (newline excluded). */
export type RecordVisitor = (record: WireRecord, offset: number, length: number, raw: string) => void;

/**
 * Reads a wire log front to back in chunks and calls `visit` for each readable record. With
 * `only`, lines that cannot be a record of those types are skipped unparsed (a fast structural
 * scan: turn boundaries, rewinds and usage are small lines among large messages). Tolerates
 * what docs/reference.md (Wire records) lists: a torn last line, blank lines, unknown types, higher versions, and also
 * lines that are not JSON, invalid UTF-8 and overlong lines. Never throws for content; a missing
 * file is an empty log.
 */
export function scanWireLog(file: string, visit: RecordVisitor, options: ScanOptions = {}): ScanReport {
  const only = options.only?.map((t) => Buffer.from(`"t":"${t}"`));
  const report = emptyReport();
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return report;
    throw err;
  }
  try {
    const end = options.end ?? fs.fstatSync(fd).size;
    let position = options.start ?? 0;
    report.bytes = end - position;
    let carry: Buffer = Buffer.alloc(0);
    let carryOffset = position;
    let skipping = false; // inside an overlong line
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    while (position < end) {
      const read = fs.readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, end - position), position);
      if (read === 0) break;
      let chunk = buffer.subarray(0, read);
      let chunkOffset = position;
      position += read;
      if (carry.length > 0) {
        chunk = Buffer.concat([carry, chunk]);
        chunkOffset = carryOffset;
        carry = Buffer.alloc(0);
      }
      const lastNewline = chunk.lastIndexOf(10);
      if (lastNewline < 0) {
        if (skipping || chunk.length > MAX_LINE_BYTES) {
          if (!skipping) noteBad(report, chunkOffset, 'too-long');
          skipping = true;
        } else {
          carry = Buffer.from(chunk);
          carryOffset = chunkOffset;
        }
        continue;
      }
      const whole = chunk.subarray(0, lastNewline + 1);
      const allValid = isUtf8(whole);
      let start = 0;
      while (start <= lastNewline) {
        const nl = chunk.indexOf(10, start);
        if (skipping) {
          skipping = false; // this newline ends the overlong line
        } else {
          if (!only || only.some((needle) => chunk.subarray(start, nl).includes(needle)))
            readLine(chunk, start, nl, chunkOffset + start, allValid, report, visit);
        }
        start = nl + 1;
      }
      if (lastNewline + 1 < chunk.length) {
        carry = Buffer.from(chunk.subarray(lastNewline + 1));
        carryOffset = chunkOffset + lastNewline + 1;
      }
    }
    if (skipping) {
      report.unterminated = true;
      report.tornTail = true;
    } else if (carry.length > 0 && (!only || only.some((needle) => carry.includes(needle)))) {
      readTail(carry, carryOffset, report, visit);
    }
    return report;
  } finally {
    fs.closeSync(fd);
  }
}

function noteBad(report: ScanReport, offset: number, reason: BadLine['reason']): void {
  report.lines++;
  report.badLines++;
  if (report.bad.length < MAX_REPORTED_BAD) report.bad.push({ line: report.lines, offset, reason });
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

function readLine(buf: Buffer, start: number, end: number, offset: number, knownValid: boolean, report: ScanReport, visit: RecordVisitor): boolean {
  if (isBlank(buf, start, end)) {
    report.lines++;
    report.blankLines++;
    return true;
  }
  const slice = buf.subarray(start, end);
  const validUtf8 = knownValid || isUtf8(slice);
  const raw = slice.toString('utf8');
  const parsed = parseRecordLine(raw);
  if ('bad' in parsed) {
    noteBad(report, offset, validUtf8 ? parsed.bad : 'invalid-utf8');
    return false;
  }
  report.lines++;
  report.records++;
  if (!validUtf8) report.invalidUtf8Lines++;
  if ('unknown' in parsed.record) report.unknownRecords++;
  if (parsed.record.v > WIRE_VERSION) report.newerRecords++;
  visit(parsed.record, offset, end - start, raw);
  return true;
}

/** The bytes after the last newline: a record missing only its newline is read; anything else is a torn tail. */
function readTail(tail: Buffer, offset: number, report: ScanReport, visit: RecordVisitor): void {
  report.unterminated = true;
  if (isBlank(tail, 0, tail.length)) return;
  const parsed = parseRecordLine(tail.toString('utf8'));
  if ('bad' in parsed) {
    report.tornTail = true;
    report.tornBytes = tail.length;
    return;
  }
  readLine(tail, 0, tail.length, offset, false, report, visit);
}

/**
 * Reads every record of a log (or of the part `options` names) into memory, in order, with what
 * the scan tolerated: the one way to collect a log's records (replay, rewind, fork, a follower).
 */
export function readWireLog(file: string, options: ScanOptions = {}): { records: WireRecord[]; report: ScanReport } {
  const records: WireRecord[] = [];
  const report = scanWireLog(file, (r) => records.push(r), options);
  return { records, report };
}
