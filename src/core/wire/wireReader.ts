import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import { headType } from './lineHead';
import { walkLines, walkPieces, type LineVisitor, type LineWalk } from './lineWalk';
import { parseRecordLine, WIRE_VERSION, type BadLineReason, type WireRecord } from './records';

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
  /**
   * A record made from a line's bytes without parsing it, or undefined to parse the line (the
   * index's summaries take a tool result from its head and end: format/headFold.ts). A line so
   * taken is visited as a whole record, with no text.
   */
  readonly fromHead?: (buf: Buffer, start: number, end: number) => WireRecord | undefined;
}

/** Called for every readable record with its byte offset and length (newline excluded). */
export type RecordVisitor = (record: WireRecord, offset: number, length: number, raw: string) => void;

/**
 * Reads a wire log front to back in chunks and calls `visit` for each readable record. With
 * `only`, it visits the records of those types and no others; a line whose head names another
 * type (see lineHead.ts) is skipped unparsed and uncounted, so a structural scan of turn
 * boundaries, rewinds and usage costs little more than reading the file. A line whose head says
 * nothing is parsed and visited by its parsed type. Tolerates what docs/reference.md (Wire
 * records) lists: a torn last line, blank lines, unknown types, higher versions, and also lines
 * that are not JSON, invalid UTF-8 and overlong lines. Never throws for content; a missing file is
 * an empty log. The report counts the lines read (with `only`, not those skipped by their head).
 */
export function scanWireLog(file: string, visit: RecordVisitor, options: ScanOptions = {}): ScanReport {
  const fd = openLog(file);
  if (fd === undefined) return emptyReport();
  try {
    const end = options.end ?? fs.fstatSync(fd).size;
    const start = options.start ?? 0;
    return scanLines(end - start, (visitor) => walkLines(fd, start, end, visitor), visit, options);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * {@link scanWireLog} of a log's bytes held in memory in pieces (as a pipe gave them), read by the
 * same rules; `start` and `end` are not taken (the pieces are the part to read).
 */
export function scanWirePieces(pieces: readonly Buffer[], visit: RecordVisitor, options: Omit<ScanOptions, 'start' | 'end'> = {}): ScanReport {
  const bytes = pieces.reduce((n, p) => n + p.length, 0);
  return scanLines(bytes, (visitor) => walkPieces(pieces, visitor), visit, options);
}

/** The body of a scan: `walk` hands the lines of `bytes` bytes to the visitor it is given. */
function scanLines(
  bytes: number,
  walk: (visitor: Omit<LineVisitor, 'passed'>) => Pick<LineWalk, 'tail' | 'overlongTail'>,
  visit: RecordVisitor,
  options: ScanOptions,
): ScanReport {
  const report = emptyReport();
  report.bytes = bytes;
  const wanted = options.only ? new Set(options.only) : undefined;
  const fromHead = options.fromHead;
  // Without `only` or `fromHead` every line is parsed: a chunk's lines are checked and decoded at
  // once (a line's text is then a slice of the chunk's), which costs less than a check and a
  // decode per line.
  const chunk = { valid: false, text: '', at: 0 };
  const walked = walk({
    region:
      wanted || fromHead
        ? undefined
        : (buf, from, to) => {
            chunk.valid = isUtf8(buf.subarray(from, to));
            chunk.text = buf.toString('utf8', from, to);
            chunk.at = 0;
          },
    line: (buf, from, to, offset) => {
      const taken = fromHead?.(buf, from, to);
      if (taken) {
        report.lines++;
        report.records++;
        visit(taken, offset, to - from, '');
        return;
      }
      if (wanted) {
        const type = headType(buf, from, to);
        if (type === undefined || wanted.has(type)) readLine(buf, from, to, offset, false, wanted, report, visit);
        return;
      }
      if (fromHead) {
        readLine(buf, from, to, offset, false, wanted, report, visit);
        return;
      }
      // A newline byte decodes to a newline of its own (a sequence it cuts short becomes U+FFFD), so the lines correspond.
      const nl = chunk.text.indexOf('\n', chunk.at);
      const text = chunk.text.slice(chunk.at, nl);
      chunk.at = nl + 1;
      readLine(buf, from, to, offset, chunk.valid, wanted, report, visit, text);
    },
    overlong: (offset) => noteBad(report, offset, 'too-long'),
  });
  report.unterminated = walked.overlongTail || walked.tail !== undefined;
  report.tornTail = walked.overlongTail;
  const tail = walked.tail;
  if (tail && !walked.overlongTail) {
    const type = wanted ? headType(tail.buf, tail.start, tail.end) : undefined;
    if (type === undefined || wanted!.has(type)) readTail(tail.buf, tail.start, tail.end, tail.offset, wanted, report, visit);
  }
  return report;
}

/** Opens a log for reading; undefined when it does not exist. */
function openLog(file: string): number | undefined {
  try {
    return fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
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

/** What readers make of one whole line: nothing (blank), a record (parsed from `raw`), or the reason it cannot be read. */
export type LineVerdict =
  { readonly blank: true } | { readonly record: WireRecord; readonly raw: string; readonly validUtf8: boolean } | { readonly bad: BadLine['reason'] };

const BLANK: LineVerdict = { blank: true };

/**
 * The one rule every reader applies to a line (bytes [start, end) of `buf`, its newline
 * excluded): blank lines are passed over, a line that parses as a record is read (invalid UTF-8
 * read with replacement characters), any other line cannot be read and says why. `knownValid`
 * and `text` spare a check and a decode already made for the line's chunk.
 */
export function judgeLine(buf: Buffer, start: number, end: number, knownValid = false, text?: string): LineVerdict {
  if (isBlank(buf, start, end)) return BLANK;
  const raw = text ?? buf.toString('utf8', start, end);
  const parsed = parseRecordLine(raw);
  const validUtf8 = knownValid || isUtf8(buf.subarray(start, end));
  if ('bad' in parsed) return { bad: validUtf8 ? parsed.bad : 'invalid-utf8' };
  return { record: parsed.record, raw, validUtf8 };
}

function readLine(
  buf: Buffer,
  start: number,
  end: number,
  offset: number,
  knownValid: boolean,
  wanted: ReadonlySet<string> | undefined,
  report: ScanReport,
  visit: RecordVisitor,
  text?: string,
): boolean {
  const verdict = judgeLine(buf, start, end, knownValid, text);
  if ('blank' in verdict) {
    report.lines++;
    report.blankLines++;
    return true;
  }
  if ('bad' in verdict) {
    noteBad(report, offset, verdict.bad);
    return false;
  }
  const { record, raw } = verdict;
  report.lines++;
  report.records++;
  if (!verdict.validUtf8) report.invalidUtf8Lines++;
  if ('unknown' in record) report.unknownRecords++;
  if (record.v > WIRE_VERSION) report.newerRecords++;
  if (!wanted || wanted.has(record.t)) visit(record, offset, end - start, raw);
  return true;
}

/** The bytes after the last newline: a record missing only its newline is read; anything else is a torn tail. */
function readTail(
  buf: Buffer,
  start: number,
  end: number,
  offset: number,
  wanted: ReadonlySet<string> | undefined,
  report: ScanReport,
  visit: RecordVisitor,
): void {
  if (isBlank(buf, start, end)) return;
  const parsed = parseRecordLine(buf.toString('utf8', start, end));
  if ('bad' in parsed) {
    report.tornTail = true;
    report.tornBytes = end - start;
    return;
  }
  readLine(buf, start, end, offset, false, wanted, report, visit);
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

/**
 * The record whose line starts at byte `offset` of a log (a place a fold noted: a rewind, a
 * `forked` record, a turn's first line), reading that line alone; undefined when it is not one.
 */
export function readRecordAt(file: string, offset: number): WireRecord | undefined {
  const fd = openLog(file);
  if (fd === undefined) return undefined;
  let found: WireRecord | undefined;
  try {
    walkLines(fd, offset, fs.fstatSync(fd).size, {
      line: (buf, start, end, lineOffset) => {
        const read = lineOffset === offset ? parseRecordLine(buf.toString('utf8', start, end)) : undefined;
        if (read && 'record' in read) found = read.record;
        return false;
      },
      overlong: () => undefined,
    });
  } finally {
    fs.closeSync(fd);
  }
  return found;
}
