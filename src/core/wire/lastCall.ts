import fs from 'node:fs';
import { openIfExists, scanBackward } from './backwardLines';
import { isKnown, parseRecordLine, type TurnBeginRecord, type UsageRecord } from './records';

/**
 * The main agent's last model call in a log, read from its end: the usage record of the last
 * call of the conversation (side calls and subagents have a purpose) and the turn_begin of its
 * turn, and whether a rewind, its undo or a compaction changed the conversation after it. Undefined when
 * the last turn that began made no call, or the log has none.
 */
export function readLastCall(file: string): { turnBegin: TurnBeginRecord; usage: UsageRecord; rewrittenSince: boolean } | undefined {
  const fd = openIfExists(file);
  if (fd === undefined) return undefined;
  let usage: UsageRecord | undefined;
  let turnBegin: TurnBeginRecord | undefined;
  let rewrittenSince = false;
  try {
    scanBackward(fd, fs.fstatSync(fd).size, (line) => {
      const parsed = parseRecordLine(line);
      if (!('record' in parsed) || !isKnown(parsed.record)) return true;
      const r = parsed.record;
      if (usage === undefined && (r.t === 'rewind' || r.t === 'undo_rewind' || r.t === 'compaction')) rewrittenSince = true;
      if (r.t === 'usage' && r.purpose === undefined) usage ??= r;
      if (r.t === 'turn_begin' && usage !== undefined && r.turn === usage.turn) turnBegin = r;
      return turnBegin === undefined && !(r.t === 'turn_begin' && usage === undefined);
    });
  } finally {
    fs.closeSync(fd);
  }
  return usage && turnBegin ? { turnBegin, usage, rewrittenSince } : undefined;
}
