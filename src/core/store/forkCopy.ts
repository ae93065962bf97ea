import fs from 'node:fs';
import path from 'node:path';
import { applyRecord, emptyFold, MAX_SEARCH_TEXT, type LogFold, type TurnFacts } from '../format/logFold';
import { EffectiveTurns } from '../wire/effectiveTurns';
import { readLineHead, trailingTs } from '../wire/lineHead';
import { walkLines } from '../wire/lineWalk';
import { isChangeUndoLine, parseRecordLine, type NewRecord, type WireRecord } from '../wire/records';

/**
 * Record types a fork's copy parses and folds: those of no turn (the session's start, usage,
 * `forked`, rewinds and their undos, relinks, imports, gc). The records of turns are walked past:
 * the source's turn map already says what the fork's turns are.
 */
const PARSED = new Set(['agent', 'usage', 'forked', 'rewind', 'undo_rewind', 'relinked', 'imported', 'gc']);

/** A main log's prefix copied for a fork, and the fold of the copy. */
export interface CopiedPrefix {
  readonly fold: LogFold;
  /** Bytes copied. */
  readonly bytes: number;
  /** The copy holds records of turns after the last kept one that no rewind in it drops (a log not written in turn order). */
  readonly beyond: boolean;
  /**
   * The `undo_rewind` the source wrote after the cut for the last rewind in the copy, when that
   * rewind dropped kept turns: the fork appends it first, so it holds them too (`beyond` counts it).
   */
  readonly undo: NewRecord | undefined;
}

/** Records after which a rewind can no longer be undone (docs/reference.md, Operations, Undo rewind): a turn went on, or the log was copied into a fork. */
const WENT_ON = new Set(['turn_begin', 'message', 'forked']);

/**
 * Copies a main log's first `bytes` into the open file `dst` from its start (not synced), in one
 * read, and makes the copy's fold without parsing its turns: the records of no turn are parsed
 * and folded, the turns are the source's effective turns up to `lastKept` (their spans lie in the
 * copy: a fork cuts after the last of them), and the search text is the source's, cut to those
 * turns' prompts. A line of a later turn found on the way, and not dropped by a rewind in the
 * copy, is noted (`beyond`): the fork then says so with a rewind record of its own. A cut between
 * a rewind of kept turns and the source's undo of it (the fork's turns are the source's, so they
 * are back) leaves the copy without them: the fork appends that undo too (`undo`).
 */
export function copyForFork(sourceLog: string, dst: number, bytes: number, source: LogFold, lastKept: number): CopiedPrefix {
  const fold = emptyFold();
  const later = new EffectiveTurns<{ turn: number; t?: string }>();
  /** The lowest turn the copy's last rewind (with its follow-ups) goes to, while an undo could still take it back. */
  let undoable: number | undefined;
  /** A rewind came since a turn last went on: the next record that goes on is noted in `later` too, so an undo after it takes back nothing (as in a whole read). */
  let rewound = false;
  const noteTurn = (type: string, turn: number | undefined): void => {
    if (WENT_ON.has(type)) undoable = undefined;
    const goesOn = type === 'turn_begin' || type === 'message';
    if (turn !== undefined && (turn > lastKept || (goesOn && rewound))) later.push({ turn, ...(goesOn ? { t: type } : {}) });
    if (goesOn) rewound = false;
  };
  const fd = fs.openSync(sourceLog, 'r');
  let copied = 0;
  const take = (record: WireRecord, offset: number, length: number): void => {
    applyRecord(fold, record, offset, length);
    if (record.t === 'rewind') {
      const toTurn = (record as { toTurn: number }).toTurn;
      later.rewind(toTurn);
      undoable = Math.min(undoable ?? toTurn, toTurn);
      rewound = true;
    } else if (record.t === 'undo_rewind') {
      later.undo();
      undoable = undefined;
    } else if (record.t !== 'usage') {
      const turn = (record as { turn?: unknown }).turn;
      noteTurn(record.t, typeof turn === 'number' ? turn : undefined);
    }
  };
  try {
    const walk = walkLines(fd, 0, bytes, {
      line: (buf, start, end, offset) => {
        const head = readLineHead(buf, start, end);
        const ts = head && !PARSED.has(head.type) ? trailingTs(buf, start, end) : undefined;
        if (head && ts !== undefined) {
          // A record of a turn, laid out as the writer writes it: its time and its turn are all the copy needs.
          noteTime(fold, ts);
          noteTurn(head.type, head.turn);
          if (head.type === 'file_change' && isChangeUndoLine(buf, start, end)) fold.changeUndosAt.push(offset);
          return true;
        }
        const parsed = parseRecordLine(buf.toString('utf8', start, end));
        if ('record' in parsed) take(parsed.record, offset, end - start);
        return true;
      },
      overlong: () => undefined,
      passed: (buf, start, end) => {
        writeAt(dst, buf, start, end, copied);
        copied += end - start;
      },
    });
    if (walk.tail) {
      // A last line without its newline: copied when it is a record, left out when torn (as a crash leaves it).
      const text = walk.tail.buf.toString('utf8', walk.tail.start, walk.tail.end);
      const parsed = parseRecordLine(text);
      if ('record' in parsed) take(parsed.record, walk.tail.offset, walk.tail.end - walk.tail.start);
      if ('record' in parsed || !text.trim()) {
        writeAt(dst, walk.tail.buf, walk.tail.start, walk.tail.end, copied);
        copied += walk.tail.end - walk.tail.start;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  const turns = keptTurns(source, lastKept);
  fold.turns = turns;
  fold.prompts = source.prompts.slice(0, Math.min(MAX_SEARCH_TEXT, Math.max(0, turns.reduce((n, t) => n + t.promptChars, 0) - 1)));
  const undo = undoable !== undefined && undoable <= lastKept ? undoAfter(sourceLog, bytes) : undefined;
  if (undo) {
    later.undo();
    // The fold takes the undo as a whole read does: the turns it puts back and the search text are the source's already.
    const last = fold.lastRewind;
    if (typeof last === 'object' && last) fold.lastRewind = { ...last, dropped: [], prompts: fold.prompts };
  }
  return { fold, bytes: copied, beyond: later.items.some((item) => item.turn > lastKept), undo };
}

/**
 * The `undo_rewind` a log holds after byte `from`, when it comes before anything that makes the
 * last rewind before `from` final (a turn went on, a `forked` record): the undo of that rewind.
 */
function undoAfter(log: string, from: number): NewRecord | undefined {
  let undo: NewRecord | undefined;
  /** Whether the walk goes on past `record` (it stops at the undo, or at what makes the rewind final). */
  const goesPast = (record: WireRecord): boolean => {
    if (record.t === 'undo_rewind') undo = { t: 'undo_rewind', toTurn: (record as { toTurn: number }).toTurn };
    return undo === undefined && !WENT_ON.has(record.t);
  };
  const fd = fs.openSync(log, 'r');
  try {
    const walk = walkLines(fd, from, fs.fstatSync(fd).size, {
      line: (buf, start, end) => {
        const type = readLineHead(buf, start, end)?.type;
        if (type !== undefined && type !== 'undo_rewind') return !WENT_ON.has(type);
        const parsed = parseRecordLine(buf.toString('utf8', start, end));
        return 'record' in parsed ? goesPast(parsed.record) : true;
      },
      overlong: () => undefined,
    });
    if (walk.stoppedAt === undefined && walk.tail) {
      // A last line without its newline is a record when it parses (as the copy takes one).
      const parsed = parseRecordLine(walk.tail.buf.toString('utf8', walk.tail.start, walk.tail.end));
      if ('record' in parsed) goesPast(parsed.record);
    }
  } finally {
    fs.closeSync(fd);
  }
  return undo;
}

/** The source's effective turns up to `lastKept`, copied (the fork's fold goes on changing them). */
function keptTurns(source: LogFold, lastKept: number): TurnFacts[] {
  return source.turns.filter((t) => t.turn <= lastKept).map((t) => JSON.parse(JSON.stringify(t)) as TurnFacts);
}

/** The time of a record walked past, as the fold takes a record's time. */
function noteTime(fold: LogFold, ts: number): void {
  if (fold.startedAt === 0) fold.startedAt = ts;
  if (ts > fold.lastTs) fold.lastTs = ts;
}

/** Writes bytes [start, end) of `buf` at file offset `position`. */
function writeAt(fd: number, buf: Buffer, start: number, end: number, position: number): void {
  for (let at = start; at < end;) at += fs.writeSync(fd, buf, at, end - at, position + at - start);
}

/** Copies the first `bytes` of a file (a prefix of complete lines), synced. */
export function copyPrefix(from: string, to: string, bytes: number): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const dst = fs.openSync(to, 'w');
  try {
    copyPrefixInto(from, dst, bytes);
    fs.fsyncSync(dst);
  } finally {
    fs.closeSync(dst);
  }
}

/** Writes the first `bytes` bytes of `from` at the start of the open file `dst`, unsynced. */
export function copyPrefixInto(from: string, dst: number, bytes: number): void {
  const src = fs.openSync(from, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(4 * 1024 * 1024, bytes)));
    for (let pos = 0; pos < bytes;) {
      const n = fs.readSync(src, buffer, 0, Math.min(buffer.length, bytes - pos), pos);
      if (n === 0) break;
      writeAt(dst, buffer, 0, n, pos);
      pos += n;
    }
  } finally {
    fs.closeSync(src);
  }
}
