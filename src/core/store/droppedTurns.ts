import fs from 'node:fs';
import type { LogFold, TurnFacts } from '../format/logFold';
import { EffectiveTurns } from '../wire/effectiveTurns';
import { headIdIs, readLineHead, trailingTs, type LineHead } from '../wire/lineHead';
import { walkLines } from '../wire/lineWalk';
import { isKnown, isPromptRecord, marksPulled, parseRecordLine, type FileChangeRecord, type KnownRecord, type MessageRecord } from '../wire/records';

/** What a rewind needs of the turns it drops, read from their spans in the log. */
export interface DroppedRecords {
  /** The prompt rewound to. */
  readonly prompt: MessageRecord;
  /** The dropped turns' user messages, shell and MCP calls and shell results, in order: what the preview says of them. */
  readonly messages: MessageRecord[];
  /** Of this machine's turns only: those of turns pulled from another machine's log are left out (see `marksPulled`). */
  readonly fileChanges: FileChangeRecord[];
  /** The dropped turns whose records came from a session pulled from a git remote. */
  readonly pulledTurns: number;
}

const BASH = 'bash';
const BASH_CALL = Buffer.from(`"name":"${BASH}"`);
/** An MCP call: the preview lists them too (they may have changed things outside the checkpoints). */
const MCP_CALL = Buffer.from('"name":"mcp__');

/**
 * The effective turn that holds message `messageId`, found in the turn map from the newest turn
 * back, reading only those turns' spans (by their lines' heads: only a line that names the id is
 * parsed). `hint`, a turn the caller expects it in, is read first. Undefined when no effective
 * turn holds it.
 */
export function turnOfMessage(logFile: string, fold: LogFold, messageId: string, hint?: number): TurnFacts | undefined {
  const id = Buffer.from(messageId, 'utf8');
  const hinted = fold.turns.find((t) => t.turn === hint);
  const order = [...(hinted ? [hinted] : []), ...fold.turns.filter((t) => t !== hinted).reverse()];
  const fd = fs.openSync(logFile, 'r');
  try {
    return order.find((t) => holdsMessage(fd, t, id, messageId));
  } finally {
    fs.closeSync(fd);
  }
}

function holdsMessage(fd: number, turn: TurnFacts, id: Buffer, messageId: string): boolean {
  let found = false;
  walkLines(fd, turn.start, turn.end, {
    line: (buf, start, end) => {
      const head = writerHead(buf, start, end);
      if (head && (head.type !== 'message' || (head.idStart >= 0 && !headIdIs(buf, head, id)))) return true;
      const read = parseRecordLine(buf.toString('utf8', start, end));
      found = 'record' in read && read.record.t === 'message' && isKnown(read.record) && read.record.id === messageId && read.record.turn === turn.turn;
      return !found;
    },
    overlong: () => undefined,
  });
  return found;
}

/**
 * Reads the records of the effective turns from `toTurn` on that a rewind's preview needs, from
 * the first of their spans to `end` (the log as the fold knows it): file changes, user messages,
 * assistant messages with a shell or MCP call and shell results, each found by its line's head
 * before it is parsed. Rewinds and undos in between are applied, and records of older turns
 * (appended late) left out. A fork's mark of pulled records drops the file changes before it,
 * and a `synced` record those since the one before it when it names a machine other than
 * `machine` (this data folder's): another machine made them (the workspace's files here are none
 * of theirs, and their blobs were never sent).
 */
export function readDroppedRecords(logFile: string, fold: LogFold, toTurn: number, end: number, machine?: string): Omit<DroppedRecords, 'prompt'> {
  const from = Math.min(end, ...fold.turns.filter((t) => t.turn >= toTurn).map((t) => t.start));
  const kept = new EffectiveTurns<KnownRecord & { turn: number }>();
  const pulled = new Set<KnownRecord>();
  const segment = new Set<KnownRecord>(); // read since the last `synced` record: made by the machine the next one names
  const fd = fs.openSync(logFile, 'r');
  try {
    walkLines(fd, from, end, {
      line: (buf, start, lineEnd) => {
        const head = writerHead(buf, start, lineEnd);
        if (head && !wanted(buf, start, lineEnd, head)) return true;
        const read = parseRecordLine(buf.toString('utf8', start, lineEnd));
        if (!('record' in read) || !isKnown(read.record)) return true;
        const r = read.record;
        if (marksPulled(r)) {
          kept.items.forEach((item) => pulled.add(item));
          kept.drop((item) => item.t === 'file_change');
        } else if (r.t === 'synced') {
          if (r.machine !== machine) {
            segment.forEach((item) => pulled.add(item));
            kept.drop((item) => item.t === 'file_change' && segment.has(item));
          }
          segment.clear();
        } else if (r.t === 'rewind') kept.rewind(r.toTurn);
        else if (r.t === 'undo_rewind') kept.undo();
        else if (r.t === 'message' || r.t === 'file_change' || r.t === 'turn_begin') {
          kept.push(r);
          segment.add(r);
        }
        return true;
      },
      overlong: () => undefined,
    });
  } finally {
    fs.closeSync(fd);
  }
  const records = kept.items.filter((r) => r.turn >= toTurn);
  return {
    messages: records.filter((r): r is MessageRecord => r.t === 'message'),
    fileChanges: records.filter((r): r is FileChangeRecord => r.t === 'file_change'),
    pulledTurns: new Set(records.filter((r) => r.t === 'message' && pulled.has(r)).map((r) => r.turn)).size,
  };
}

/** The head of a line the writer wrote whole (its time at the end too): a line cut short is parsed instead. */
function writerHead(buf: Buffer, start: number, end: number): LineHead | undefined {
  return trailingTs(buf, start, end) === undefined ? undefined : readLineHead(buf, start, end);
}

/** Whether the preview needs the line (a turn_begin is kept for a rewind's bookkeeping of turns that went on). */
function wanted(buf: Buffer, start: number, end: number, head: LineHead): boolean {
  switch (head.type) {
    case 'rewind':
    case 'undo_rewind':
    case 'file_change':
    case 'turn_begin':
    case 'forked':
    case 'synced':
      return true;
    case 'message':
      if (head.role === 'user') return true;
      if (head.role === 'assistant') return lineHas(buf, start, end, BASH_CALL) || lineHas(buf, start, end, MCP_CALL);
      return head.role === 'toolResult' && toolIs(buf, head, BASH);
    default:
      return false;
  }
}

function lineHas(buf: Buffer, start: number, end: number, bytes: Buffer): boolean {
  return buf.subarray(start, end).includes(bytes);
}

/** Whether a tool result's head names tool `name` (ASCII); a head that does not name its tool is read. */
function toolIs(buf: Buffer, head: LineHead, name: string): boolean {
  if (head.toolNameStart < 0) return true;
  if (head.toolNameEnd - head.toolNameStart !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (buf[head.toolNameStart + i] !== name.charCodeAt(i)) return false;
  return true;
}

/** The prompt of effective turn `turn`: its first user message that is a prompt (else its first user message), read from its span. */
export function turnPrompt(logFile: string, turn: TurnFacts): MessageRecord | undefined {
  const users: MessageRecord[] = [];
  const fd = fs.openSync(logFile, 'r');
  try {
    walkLines(fd, turn.start, turn.end, {
      line: (buf, start, end) => {
        const head = writerHead(buf, start, end);
        if (head && (head.type !== 'message' || (head.role !== undefined && head.role !== 'user'))) return true;
        const read = parseRecordLine(buf.toString('utf8', start, end));
        if ('record' in read && read.record.t === 'message' && isKnown(read.record) && read.record.turn === turn.turn) {
          const message = read.record as MessageRecord;
          if (message.message.role === 'user') users.push(message);
        }
        return !users.some(isPromptRecord);
      },
      overlong: () => undefined,
    });
  } finally {
    fs.closeSync(fd);
  }
  return users.find(isPromptRecord) ?? users[0];
}
