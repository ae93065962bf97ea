import fs from 'node:fs';
import { openIfExists, scanBackward } from './backwardLines';
import { RewindsFromEnd } from './rewindsFromEnd';
import { isKnown, parseRecordLine, type CompactionRecord, type MemoryRecord, type MessageRecord } from './records';

/** What a session needs to continue, read from the end of its log. */
export interface ContextTail {
  /** Effective messages, oldest first: from the latest compaction's first kept message on, or all. */
  readonly messages: MessageRecord[];
  /** The latest effective compaction (its summary heads the model's context), if any. */
  readonly compactions: CompactionRecord[];
  /**
   * The latest effective memory record among the records read. Each compaction writes the memory
   * after its record, so the latest one is never before the latest compaction's kept messages.
   */
  readonly memory: MemoryRecord | undefined;
  /** The last effective turn number (0 before the first). */
  readonly lastTurn: number;
  /** An effective turn that began and did not end. */
  readonly openTurn: number | null;
  readonly bytesRead: number;
}

/**
 * Replays a log from its latest compaction (docs/reference.md, Wire records): reads backwards, applying rewinds as it
 * meets them (RewindsFromEnd), and stops
 * at the latest effective compaction's first kept message. Without a compaction it reads the
 * whole log. The records before stay in the file, untouched and unread.
 */
export function readContextTail(file: string): ContextTail {
  const fd = openIfExists(file);
  if (fd === undefined) return { messages: [], compactions: [], memory: undefined, lastTurn: 0, openTurn: null, bytesRead: 0 };
  try {
    const rewinds = new RewindsFromEnd();
    let lastTurn: number | undefined;
    let openTurn: number | null | undefined;
    let compaction: CompactionRecord | undefined;
    let memory: MemoryRecord | undefined;
    const messages: MessageRecord[] = [];
    let stoppedAt = 0;
    let bytesRead = scanBackward(fd, fs.fstatSync(fd).size, (line, offset) => {
      const parsed = parseRecordLine(line);
      if (!('record' in parsed) || !isKnown(parsed.record)) return true;
      const r = parsed.record;
      if (rewinds.meet(r) || !('turn' in r) || !rewinds.effective(r.turn)) return true;
      lastTurn ??= r.turn;
      if (openTurn === undefined && r.t === 'turn_end') openTurn = null;
      if (openTurn === undefined && r.t === 'turn_begin') openTurn = r.turn;
      if (r.t === 'compaction') compaction ??= r;
      if (r.t === 'memory') memory ??= r;
      if (r.t === 'message') {
        messages.push(r);
        if (compaction && r.id === compaction.firstKeptMessageId) {
          stoppedAt = offset;
          return false;
        }
      }
      return true;
    });
    if (openTurn === undefined && stoppedAt > 0) {
      // The turn in flight began before the kept messages: find whether it ended, reading only
      // turn boundaries (a substring test before any parsing).
      bytesRead += scanBackward(fd, stoppedAt, (line) => {
        if (!line.includes('"t":"turn_') && !line.includes('"t":"rewind"') && !line.includes('"t":"undo_rewind"')) return true;
        const parsed = parseRecordLine(line);
        if (!('record' in parsed) || !isKnown(parsed.record)) return true;
        const r = parsed.record;
        if (rewinds.meet(r)) return true;
        if ((r.t === 'turn_begin' || r.t === 'turn_end') && rewinds.effective(r.turn)) {
          openTurn = r.t === 'turn_begin' ? r.turn : null;
          return false;
        }
        return true;
      });
    }
    messages.reverse();
    // A compaction whose kept message was not found (should not happen) cannot start the context.
    const usable = compaction && messages[0]?.id === compaction.firstKeptMessageId ? [compaction] : [];
    return { messages, compactions: usable, memory, lastTurn: lastTurn ?? 0, openTurn: openTurn ?? null, bytesRead };
  } finally {
    fs.closeSync(fd);
  }
}
