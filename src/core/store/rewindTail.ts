import fs from 'node:fs';
import { applyRecord, emptyFold, MAX_SEARCH_TEXT, type EarlierTurns, type LogFold, type TurnFacts } from '../format/logFold';
import { messageText, previewOf, promptText } from '../format/messageText';
import type { SessionSummary } from '../format/summary';
import { recordFromHead } from '../format/headFold';
import { headIdIs, readLineHead, trailingTs, type LineHead } from '../wire/lineHead';
import { walkLinesBackward } from '../wire/lineWalk';
import {
  IMPORTED_MESSAGE,
  isKnown,
  isPromptRecord,
  parseRecordLine,
  type FileChangeRecord,
  type MessageRecord,
  type ModelSnapshot,
  type WireRecord,
} from '../wire/records';

/** What a rewind needs of the turns it drops, and the session without them, read from the end of the log. */
export interface DroppedTurns {
  /** The prompt rewound to: the first message of the first dropped turn. */
  readonly prompt: MessageRecord;
  /** The dropped turns' shell calls and their results, in order: what the preview says of commands. */
  readonly messages: MessageRecord[];
  readonly fileChanges: FileChangeRecord[];
  /** How many of the dropped turns began, and how many of them were imported from another agent (their prompts' ids say so). */
  readonly turnsBegun: number;
  readonly importedTurns: number;
  /** The session's fold with the dropped turns taken out: the index row's once the `rewind` record is folded in. */
  readonly fold: LogFold;
  /** The log's size it was read at. */
  readonly logBytes: number;
}

/** Record types that make their turn exist in the fold and in the history (a usage record does neither). */
const TURN_RECORDS = new Set(['turn_begin', 'turn_end', 'message', 'tool', 'file_change', 'compaction', 'context']);
const BASH = 'bash';
const BASH_CALL = Buffer.from(`"name":"${BASH}"`);
/** An MCP call: the preview lists them too (they may have changed things outside the checkpoints). */
const MCP_CALL = Buffer.from('"name":"mcp__');

/** What the dropped turns add up to in the fold. */
interface Totals {
  began: number;
  messages: number;
  promptChars: number;
}

/**
 * Reads what a rewind to prompt `messageId` drops from the end of the log back to that prompt's
 * turn, and a little before it, instead of the whole log: the session's summary (current with the
 * log) gives the rest. It takes the summary's fold apart by subtraction: the kept turns' totals
 * are the fold's less the dropped turns', and the last kept turn, the last preview and the model
 * before it are read just before the cut. That holds while the fold says its records came in turn
 * order (see LogFold.ordered), so each turn's records lie together; otherwise, or when the prompt
 * is not where a plain rewind finds it (rewound already, not a prompt), it returns undefined and
 * the caller reads the whole log.
 */
export function readDroppedTurns(logFile: string, summary: SessionSummary, messageId: string): DroppedTurns | undefined {
  const current = summary.fold;
  if (current.ordered !== true || current.stale) return undefined;
  const fd = fs.openSync(logFile, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    if (size !== summary.logBytes) return undefined;
    const reader = new TailReader(messageId, current);
    walkLinesBackward(fd, size, (buf, start, end) => reader.line(buf, start, end));
    return reader.result(size);
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether a rewind to turn `toTurn` needs the last kept turn read from the log: the fold keeps none below it in detail. */
function needsLastTurn(fold: LogFold, toTurn: number): boolean {
  return fold.earlier !== null && !fold.turns.some((t) => t.turn < toTurn);
}

type Phase = 'tail' | 'prompt-turn' | 'last-kept' | 'before-last' | 'done' | 'failed';

/**
 * Goes through the log's lines from the end: the dropped turns up to the prompt (`tail`), the rest
 * of the prompt's turn (`prompt-turn`), the last kept turn (`last-kept`), then the preview and
 * model of the turns before it (`before-last`). A record is in the history unless a rewind after
 * it dropped its turn: going backwards, while its turn is below every rewind met so far.
 */
class TailReader {
  private phase: Phase = 'tail';
  private lowestRewind = Number.POSITIVE_INFINITY;
  private prompt: MessageRecord | undefined;
  private readonly dropped = new Map<number, Totals>();
  private readonly messages: MessageRecord[] = [];
  private readonly fileChanges: FileChangeRecord[] = [];
  private turnsBegun = 0;
  private readonly importedTurns = new Set<number>();
  /** The last kept turn's records, newest first; its number; the kept turn before it. */
  private readonly lastKept: WireRecord[] = [];
  private lastTurn: number | undefined;
  private turnBefore: number | undefined;
  private previewBefore: string | undefined;
  private modelBefore: ModelSnapshot | undefined;
  private wantsLastTurn = false;
  private readonly idBytes: Buffer;

  constructor(
    private readonly id: string,
    private readonly current: LogFold,
  ) {
    this.idBytes = Buffer.from(id, 'utf8');
  }

  /** One line, newest first; false once nothing older is needed. */
  line(buf: Buffer, start: number, end: number): boolean {
    // A head counts only on a line that also ends as the writer ends one: a line cut short is parsed (and skipped).
    const head = trailingTs(buf, start, end) === undefined ? undefined : readLineHead(buf, start, end);
    const line = new LogLine(buf, start, end, head);
    const type = line.type();
    if (type === 'rewind') {
      const record = line.record();
      if (record?.t === 'rewind' && isKnown(record)) this.lowestRewind = Math.min(this.lowestRewind, record.toTurn);
      return true;
    }
    if (type === undefined || !TURN_RECORDS.has(type)) return true;
    const turn = line.turn();
    if (turn === undefined || turn >= this.lowestRewind) return true; // unreadable, or rewound away
    switch (this.phase) {
      case 'tail':
        if (type === 'message' && line.isMessage(this.id, this.idBytes)) return this.found(line, turn);
        this.drop(line, type, turn);
        return true;
      case 'prompt-turn':
        if (turn >= this.prompt!.turn) {
          this.drop(line, type, turn);
          return true;
        }
        if (!this.wantsLastTurn) return this.finish('done');
        this.phase = 'last-kept';
        this.lastTurn = turn;
        return this.keep(line, type, turn);
      case 'last-kept':
        return this.keep(line, type, turn);
      default:
        return this.before(line, type, turn);
    }
  }

  private finish(phase: 'done' | 'failed'): false {
    this.phase = phase;
    return false;
  }

  /** The prompt's line: it must be a prompt still in the history, and every record after it of its turn or later. */
  private found(line: LogLine, turn: number): boolean {
    const record = line.record();
    if (record?.t !== 'message' || (record as MessageRecord).message.role !== 'user') return this.finish('failed');
    if ([...this.dropped.keys()].some((t) => t < turn)) return this.finish('failed');
    this.prompt = record as MessageRecord;
    this.wantsLastTurn = needsLastTurn(this.current, turn);
    this.phase = 'prompt-turn';
    this.drop(line, 'message', turn);
    return true;
  }

  /** A record of a dropped turn: its totals, and what the preview lists (file changes, shell calls and their results). */
  private drop(line: LogLine, type: string, turn: number): void {
    const totals = this.dropped.get(turn) ?? { began: 0, messages: 0, promptChars: 0 };
    this.dropped.set(turn, totals);
    if (type === 'turn_begin') {
      // Counted from its head, as tool results are (see copyAndFold).
      if (!line.fromHead() && line.record()?.t !== 'turn_begin') return;
      totals.began = 1;
      this.turnsBegun++;
    } else if (type === 'file_change') {
      const record = line.record();
      if (record?.t === 'file_change') this.fileChanges.push(record as FileChangeRecord);
    } else if (type === 'message') {
      const role = line.role();
      // An assistant message or a tool result counts from its head (as copyAndFold counts it), unless the preview needs it.
      const shellCall = role === 'assistant' ? line.includes(BASH_CALL) || line.includes(MCP_CALL) : role === 'toolResult' && line.toolIs(BASH);
      if ((role === 'assistant' || role === 'toolResult') && !shellCall) {
        totals.messages++;
        return;
      }
      const message = line.message();
      if (!message) return;
      totals.messages++;
      if (message.message.role === 'user') {
        if (isPromptRecord(message)) totals.promptChars += promptText(message.message).length + 1; // as the fold counts them
        if (message.id.startsWith(IMPORTED_MESSAGE)) this.importedTurns.add(turn);
      } else this.messages.push(message);
    }
  }

  /** A record of the last kept turn, until a record of an earlier one. */
  private keep(line: LogLine, type: string, turn: number): boolean {
    if (turn > this.lastTurn!) return this.finish('failed'); // not in turn order after all
    if (turn === this.lastTurn) {
      const record = line.foldRecord();
      if (record) this.lastKept.push(record);
      return true;
    }
    this.turnBefore = turn;
    this.phase = 'before-last';
    return this.before(line, type, turn);
  }

  /** A record of the turns before the last kept one: the newest preview and the newest model among them. */
  private before(line: LogLine, type: string, turn: number): boolean {
    if (turn >= this.lastTurn!) return this.finish('failed');
    if (this.previewBefore === undefined && type === 'message' && line.role() === 'assistant') {
      const text = line.message() ? messageText(line.message()!.message) : '';
      if (text.trim()) this.previewBefore = previewOf(text);
    } else if (this.modelBefore === undefined && type === 'turn_begin') {
      const record = line.record();
      if (record?.t === 'turn_begin' && isKnown(record) && record.model) this.modelBefore = record.model;
    }
    return this.previewBefore === undefined || this.modelBefore === undefined || this.finish('done');
  }

  /** The dropped turns and the fold without them, or undefined when the log was not as a plain rewind needs it. */
  result(logBytes: number): DroppedTurns | undefined {
    if (this.phase === 'failed' || !this.prompt) return undefined;
    const fold = this.wantsLastTurn ? this.keptFold(this.current) : keptInDetail(this.current, this.prompt.turn);
    if (!fold) return undefined;
    const { prompt, fileChanges, turnsBegun } = this;
    return {
      prompt,
      messages: this.messages.reverse(),
      fileChanges: fileChanges.reverse(),
      turnsBegun,
      importedTurns: this.importedTurns.size,
      fold,
      logBytes,
    };
  }

  /**
   * The fold of the kept turns from a compact fold: the last kept turn in detail (folded from its
   * records), the ones before it as totals: the fold's totals less the dropped turns' and the last
   * kept turn's; the first prompt is the fold's when any kept turn had one; the preview and model
   * are those read before the last kept turn. A total that would go below zero means the log was
   * not what the fold says: undefined.
   */
  private keptFold(current: LogFold): LogFold | undefined {
    const all = totalsOf(current);
    const dropped = [...this.dropped.values()].reduce(add, { began: 0, messages: 0, promptChars: 0 });
    const kept = subtract(all, dropped);
    if (!kept) return undefined;
    const base = { ...current, stale: false, prompts: current.prompts.slice(0, Math.min(MAX_SEARCH_TEXT, Math.max(0, kept.promptChars - 1))) };
    if (this.lastTurn === undefined) return isZero(kept) ? { ...base, turns: [], earlier: null } : undefined;
    const last = foldedTurn(this.lastKept.reverse(), this.lastTurn);
    const rest = subtract(kept, { began: last.began ? 1 : 0, messages: last.messages, promptChars: last.promptChars });
    if (!rest) return undefined;
    if (this.turnBefore === undefined) return isZero(rest) ? { ...base, turns: [last], earlier: null } : undefined;
    const open = current.earlier?.open ?? null;
    if (open !== null && open >= this.lastTurn) return undefined; // the open turn before it is not known
    const earlier: EarlierTurns = {
      lastTurn: this.turnBefore,
      ...rest,
      firstPrompt: rest.promptChars > 0 ? firstPromptOf(current) : null,
      lastPreview: this.previewBefore ?? null,
      model: this.modelBefore ?? null,
      open,
    };
    return { ...base, turns: [last], earlier };
  }
}

/** One line of the log, read as little as asked: its head, or the record parsed once. */
class LogLine {
  private parsed: WireRecord | null | undefined;

  constructor(
    private readonly buf: Buffer,
    private readonly start: number,
    private readonly end: number,
    private readonly head: LineHead | undefined,
  ) {}

  /** The record, parsed on first use; undefined when the line is not one. */
  record(): WireRecord | undefined {
    if (this.parsed === undefined) {
      const read = parseRecordLine(this.buf.toString('utf8', this.start, this.end));
      this.parsed = 'record' in read ? read.record : null;
    }
    return this.parsed ?? undefined;
  }

  type(): string | undefined {
    return this.head?.type ?? this.record()?.t;
  }

  turn(): number | undefined {
    if (this.head?.turn !== undefined) return this.head.turn;
    const turn = (this.record() as { turn?: unknown } | undefined)?.turn;
    return typeof turn === 'number' && isKnown(this.record()!) ? turn : undefined;
  }

  role(): string | undefined {
    return this.head?.role ?? this.message()?.message.role;
  }

  message(): MessageRecord | undefined {
    const record = this.record();
    return record?.t === 'message' && isKnown(record) ? (record as MessageRecord) : undefined;
  }

  /** Whether the line was read from its head (the writer's layout), not parsed. */
  fromHead(): boolean {
    return this.head !== undefined;
  }

  /** Whether this is a tool result of tool `name` (ASCII): by its head, or parsed when the head does not say. */
  toolIs(name: string): boolean {
    const head = this.head;
    if (head && head.toolNameStart >= 0) {
      if (head.toolNameEnd - head.toolNameStart !== name.length) return false;
      for (let i = 0; i < name.length; i++) if (this.buf[head.toolNameStart + i] !== name.charCodeAt(i)) return false;
      return true;
    }
    const message = this.message()?.message;
    return message?.role === 'toolResult' && message.toolName === name;
  }

  /** Whether this message line is message `id` (`bytes` in UTF-8): its head names it (and it parses), or, without a head, its record. */
  isMessage(id: string, bytes: Buffer): boolean {
    if (this.head && this.head.idStart >= 0 && !headIdIs(this.buf, this.head, bytes)) return false;
    return this.message()?.id === id;
  }

  includes(bytes: Buffer): boolean {
    return this.head === undefined || this.buf.subarray(this.start, this.end).includes(bytes);
  }

  /** The record as the fold takes it: from its head and end when that is all the fold takes (as copyAndFold does), else parsed. */
  foldRecord(): WireRecord | undefined {
    return (this.head && recordFromHead(this.buf, this.start, this.end, this.head)) ?? this.record();
  }
}

/** The facts of turn `turn` folded from its records in file order. */
function foldedTurn(records: WireRecord[], turn: number): TurnFacts {
  const fold = emptyFold();
  for (const r of records) applyRecord(fold, r);
  return (
    fold.turns.find((t) => t.turn === turn) ?? {
      turn,
      began: false,
      model: null,
      messages: 0,
      firstPrompt: null,
      promptChars: 0,
      lastPreview: null,
      outcome: null,
      error: null,
    }
  );
}

/** A fold whose dropped turns are all held in detail: the kept ones are the detailed turns below the prompt's. */
function keptInDetail(current: LogFold, toTurn: number): LogFold {
  return { ...current, turns: current.turns.filter((t) => t.turn < toTurn) };
}

function totalsOf(fold: LogFold): Totals {
  const detail = fold.turns.reduce((sum, t) => add(sum, { began: t.began ? 1 : 0, messages: t.messages, promptChars: t.promptChars }), {
    began: 0,
    messages: 0,
    promptChars: 0,
  });
  return fold.earlier ? add(detail, fold.earlier) : detail;
}

function add(a: Totals, b: Totals): Totals {
  return { began: a.began + b.began, messages: a.messages + b.messages, promptChars: a.promptChars + b.promptChars };
}

function subtract(a: Totals, b: Totals): Totals | undefined {
  const r = { began: a.began - b.began, messages: a.messages - b.messages, promptChars: a.promptChars - b.promptChars };
  return r.began < 0 || r.messages < 0 || r.promptChars < 0 ? undefined : r;
}

function isZero(t: Totals): boolean {
  return t.began === 0 && t.messages === 0 && t.promptChars === 0;
}

/** The first prompt of a fold's turns (a compact fold keeps it among its totals). */
function firstPromptOf(fold: LogFold): string | null {
  return fold.earlier?.firstPrompt ?? fold.turns.find((t) => t.firstPrompt !== null)?.firstPrompt ?? null;
}
