import fs from 'node:fs';
import { openIfExists, scanBackward } from './backwardLines';
import { RewindsFromEnd } from './rewindsFromEnd';
import type { TurnMode } from './turnMode';
import { isKnown, isPromptRecord, parseRecordLine, type CacheBreakRecord, type CompactionRecord, type ContextRecord, type MessageRecord } from './records';

/** Where an older page ends: a byte offset (a line start), and the lowest rewind seen after it. */
export interface PageCursor {
  readonly offset: number;
  readonly minRewind: number;
}

export interface MessagePage {
  /** Effective messages, oldest first. */
  readonly messages: MessageRecord[];
  /** Effective compactions among them, each with the id of the message it follows in the log. */
  readonly compactions: { readonly record: CompactionRecord; readonly afterMessageId: string | undefined }[];
  /** The mode of each turn whose user message is on the page, where its turn_begin names one. */
  readonly modes: ReadonlyMap<number, TurnMode>;
  /** What the user attached, by the id of the prompt it came with (its turn's first user message on the page). */
  readonly contexts: ReadonlyMap<string, ContextRecord>;
  /** Cache breaks of the page's answers, by the answer's id. */
  readonly breaks: ReadonlyMap<string, CacheBreakRecord>;
  /** Pass it back for the page before this one; undefined when this page reaches the start. */
  readonly before: PageCursor | undefined;
  /** Bytes read to build the page. */
  readonly bytesRead: number;
  /** Lines read for the page that are not records (cut short by a crash, or damaged): skipped. */
  readonly skippedLines: number;
}

/** Messages a page holds by default (docs/reference.md, Stream frames). */
export const PAGE_SIZE = 80;

/**
 * Reads the newest `limit` effective messages by reading the log from its end, so opening a huge
 * session costs the page, not the file. A record is effective unless a rewind later in the file
 * dropped its turn (RewindsFromEnd). Lines that do not parse (a torn tail among them) are skipped.
 */
export function readNewestPage(file: string, limit = PAGE_SIZE, before?: PageCursor): MessagePage {
  const fd = openIfExists(file);
  if (fd === undefined)
    return { messages: [], compactions: [], modes: new Map(), contexts: new Map(), breaks: new Map(), before: undefined, bytesRead: 0, skippedLines: 0 };
  try {
    const rewinds = new RewindsFromEnd(before?.minRewind);
    const found: MessageRecord[] = [];
    const compactions: { record: CompactionRecord; afterMessageId: string | undefined }[] = [];
    const modes = new Map<number, TurnMode>();
    const contextRecords: ContextRecord[] = [];
    const breaks = new Map<string, CacheBreakRecord>();
    /** The earliest user message found of each turn: the prompt a context record of that turn goes with. */
    const prompts = new Map<number, string>();
    /**
     * A full page whose oldest message is a prompt reads on to that turn's turn_begin for its mode
     * and its context record (written between the two): past records of the same turn (no
     * message), never further.
     */
    const readOn = (parsed: ReturnType<typeof parseRecordLine>, oldest: MessageRecord): boolean => {
      if (!('record' in parsed) || !isKnown(parsed.record)) return false;
      const r = parsed.record;
      if (r.t === 'turn_begin' && r.turn === oldest.turn && r.mode) modes.set(r.turn, r.mode);
      if (r.t === 'context' && r.turn === oldest.turn) contextRecords.push(r);
      return r.t !== 'turn_begin' && r.t !== 'message' && 'turn' in r && r.turn === oldest.turn;
    };
    let oldestFound = -1;
    let skippedLines = 0;
    const bytesRead = scanBackward(fd, before ? before.offset : fs.fstatSync(fd).size, (line, offset) => {
      const parsed = parseRecordLine(line);
      if (found.length >= limit) return readOn(parsed, found.at(-1)!);
      if (!('record' in parsed)) {
        if (line.trim()) skippedLines++;
        return true;
      }
      if (!isKnown(parsed.record)) return true;
      const r = parsed.record;
      if (rewinds.meet(r) || !('turn' in r) || !rewinds.effective(r.turn)) return true;
      if (r.t === 'compaction') compactions.push({ record: r, afterMessageId: undefined });
      else if (r.t === 'turn_begin' && r.mode) modes.set(r.turn, r.mode);
      else if (r.t === 'context') contextRecords.push(r);
      else if (r.t === 'cache_break') breaks.set(r.messageId, r);
      else if (r.t === 'message') {
        found.push(r);
        oldestFound = offset;
        if (isPromptRecord(r)) prompts.set(r.turn, r.id);
        for (const c of compactions) c.afterMessageId ??= r.id;
      }
      return found.length < limit || found.at(-1)!.message.role === 'user';
    });
    found.reverse();
    compactions.reverse();
    const contexts = new Map<string, ContextRecord>();
    for (const c of contextRecords) {
      const prompt = prompts.get(c.turn);
      if (prompt !== undefined && !contexts.has(prompt)) contexts.set(prompt, c);
    }
    const more = found.length >= limit && oldestFound > 0;
    return {
      messages: found,
      compactions,
      modes,
      contexts,
      breaks,
      before: more ? { offset: oldestFound, minRewind: rewinds.lowestRewind } : undefined,
      bytesRead,
      skippedLines,
    };
  } finally {
    fs.closeSync(fd);
  }
}
