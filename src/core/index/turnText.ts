import fs from 'node:fs';
import type { Message } from '@mariozechner/pi-ai';
import { promptText } from '../format/messageText';
import { injectedOf, isKnown, parseRecordLine, type MessageRecord } from '../wire/records';

/** What one turn said (each text as it stands) and the files it changed, read from its span of the main log. */
export interface TurnContent {
  texts: string[];
  files: string[];
}

/** Arguments of a tool call are searched up to this many characters (a file written whole is its result's business). */
const MAX_ARGUMENT_CHARS = 4096;

/**
 * Spans of one log read through one open file, opened at the first read: a session's turns cost
 * one open, not one each (a rebuild reads every turn of every session). A span is usually just
 * written, so it is read from the page cache; an unreadable log reads as nothing, and a span is
 * cut at the file's end.
 */
export class SpanReader {
  /** Undefined until the first read; null when the log could not be opened. */
  private fd: number | null | undefined;

  constructor(private readonly file: string) {}

  read(start: number, end: number): Buffer {
    if (end <= start) return Buffer.alloc(0);
    if (this.fd === undefined) {
      try {
        this.fd = fs.openSync(this.file, 'r');
      } catch {
        this.fd = null;
      }
    }
    if (this.fd === null) return Buffer.alloc(0);
    try {
      const buf = Buffer.alloc(end - start);
      const n = fs.readSync(this.fd, buf, 0, buf.length, start);
      return buf.subarray(0, n);
    } catch {
      return Buffer.alloc(0);
    }
  }

  close(): void {
    if (typeof this.fd === 'number') fs.closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * What turn `turn` said and changed in `bytes` (whole lines of a main log): its prompts (not
 * context another tool injected), the assistant's text, thinking and tool call arguments, the
 * tools' results, and the paths of its `file_change` records. Records of other turns a span
 * holds (a record of an older turn appended later widens that turn's span) are skipped.
 */
export function turnContent(bytes: Buffer, turn: number): TurnContent {
  const content: TurnContent = { texts: [], files: [] };
  let at = 0;
  while (at < bytes.length) {
    const nl = bytes.indexOf(10, at);
    const end = nl < 0 ? bytes.length : nl;
    if (end > at) addRecord(content, bytes.toString('utf8', at, end), turn);
    at = end + 1;
  }
  return content;
}

function addRecord(content: TurnContent, line: string, turn: number): void {
  const read = parseRecordLine(line);
  if (!('record' in read) || !isKnown(read.record)) return;
  const record = read.record;
  if (!('turn' in record) || record.turn !== turn) return;
  if (record.t === 'message') content.texts.push(...messageTexts(record));
  else if (record.t === 'file_change') addFile(content, record.path);
  else if (record.t === 'commit') for (const file of record.files) addFile(content, file.path);
}

function addFile(content: TurnContent, file: string): void {
  if (!content.files.includes(file)) content.files.push(file);
}

/** The searchable texts of a message record. */
export function messageTexts(record: MessageRecord): string[] {
  const message: Message = record.message;
  if (message.role === 'user') return injectedOf(record) ? [] : [promptText(message)];
  const texts: string[] = [];
  for (const block of message.content) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'thinking') texts.push(block.thinking);
    else if (block.type === 'toolCall') texts.push(argumentText(block.arguments));
  }
  return texts;
}

/** The string values of a tool call's arguments (its command, path, pattern), cut to MAX_ARGUMENT_CHARS. */
function argumentText(args: unknown): string {
  const parts: string[] = [];
  let chars = 0;
  const walk = (value: unknown, depth: number): void => {
    if (chars >= MAX_ARGUMENT_CHARS || depth > 4) return;
    if (typeof value === 'string') {
      parts.push(value.slice(0, MAX_ARGUMENT_CHARS - chars));
      chars += value.length;
    } else if (value && typeof value === 'object') for (const v of Object.values(value)) walk(v, depth + 1);
  };
  walk(args, 0);
  return parts.join('\n');
}
