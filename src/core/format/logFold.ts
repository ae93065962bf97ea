import type { Message } from '@mariozechner/pi-ai';
import { callId } from '../wire/replay';
import type { WrittenLine } from '../wire/wireLog';
import {
  injectedOf,
  isChangeUndo,
  isKnown,
  parseRecordLine,
  type MessageRecord,
  type ModelSnapshot,
  type TurnOutcome,
  type UsageRecord,
  type WireRecord,
} from '../wire/records';
import { messageText, previewOf, promptText } from './messageText';
import { addToTotals, addUsage, type UsageBucket } from './usage';
import { forkSource, isTime, zeroUsage, type ForkSource, type SessionStatus, type UsageTotals } from './sessionState';
import { TODO_TOOL, todoItemsOf, type TodoItem, type TodoList } from './todoList';

/**
 * What the fold keeps of one effective turn: where it lies in the log, and enough to answer for the
 * session when a rewind drops the turns after it. The list of them is the session's turn map: a
 * fork cuts the log at a turn's end, a rewind reads from a turn's start.
 */
export interface TurnFacts {
  turn: number;
  /**
   * Where its records lie in the main log: the offset of its first line, and the byte after its
   * last. A log written in turn order holds only this turn's records between them; a record of an
   * older turn appended later (by hand, or by an import) widens that turn's span over newer ones.
   */
  start: number;
  end: number;
  /** Whether its turn_begin was seen (a fork's copy or a hand-made log may hold messages of a turn without one). */
  began: boolean;
  model: ModelSnapshot | null;
  /** The git branch its turn_begin recorded; absent when it recorded none. */
  branch?: string;
  messages: number;
  /** Preview of the turn's first prompt (a user message that is not injected context); null when it has none. */
  firstPrompt: string | null;
  /** Characters the turn's user prompts add to the search text (each prompt and its separator). */
  promptChars: number;
  /** Preview of the turn's last assistant message with text; null when it has none. */
  lastPreview: string | null;
  /** How it ended; null while it is open (running, or left open by a crash). */
  outcome: TurnOutcome | null;
  error: string | null;
  /** The todo list as the turn's last todo_write call left it; absent when the turn made none. */
  todos?: TodoItem[];
}

/** The session's last rewind while it can be undone: what it dropped, and where its records lie. */
export interface RewoundTurns {
  toTurn: number;
  messageId: string;
  /** The turns it dropped, and the search text before it. */
  dropped: TurnFacts[];
  prompts: string;
  /** Offsets of its `rewind` record and of its follow-ups' (an undo reads the files they restored). */
  records: number[];
}

/**
 * The running summary of one session's main log: everything the session's derived facts (status,
 * turn count, usage, model, previews, search text) are computed from, and its turn map. It is
 * plain JSON, so the index keeps it beside the row and a writer can go on folding from where the
 * index left off.
 */
export interface LogFold {
  sessionId: string | null;
  workspaceDir: string;
  /** Time of the log's first record (its `agent` line); 0 before any. */
  startedAt: number;
  /** Time of the newest record; 0 before any. */
  lastTs: number;
  forkedFrom: ForkSource | null;
  /** Offsets of the log's `forked` records (a fork of a fork holds its sources' too): a fork cut before one says it again. */
  forkedAt: number[];
  /** Offsets of the `file_change` records of Undos from the Changes list (and their undos): a fork cut before one carries it. */
  changeUndosAt: number[];
  /** Effective turns, in number order (a rewind drops the later ones): the turn map. */
  turns: TurnFacts[];
  /**
   * The last rewind while it can be undone; `went-on` once a turn began or a message came after
   * it (or the log was copied into a fork), `undone` once undone; null when the log has none.
   */
  lastRewind: RewoundTurns | 'went-on' | 'undone' | null;
  /** User prompts of the effective turns, joined by line breaks, cut at {@link MAX_SEARCH_TEXT}. */
  prompts: string;
  /** Ids of the model calls counted, as keys `#<id>` (copies of a usage record, from a fork or an old undo, count once). */
  callIds: Record<string, 1>;
  /** Calls whose session is settled: the session itself, or the source named by a later `forked` record. */
  usage: UsageBucket[];
  /** Calls since the last `forked` record: this session's own unless another `forked` record follows. */
  unattributed: UsageBucket[];
  totals: UsageTotals;
  rewinds: number;
}

/** Purposes of usage records of calls whose answers never enter the conversation. */
const SIDE_CALLS: ReadonlySet<unknown> = new Set(['side-question', 'suggestion']);

function isSideCall(record: WireRecord): boolean {
  return record.t === 'usage' && SIDE_CALLS.has((record as { purpose?: unknown }).purpose);
}

/** A fold before any record. */
export function emptyFold(): LogFold {
  return {
    sessionId: null,
    workspaceDir: '',
    startedAt: 0,
    lastTs: 0,
    forkedFrom: null,
    forkedAt: [],
    changeUndosAt: [],
    turns: [],
    lastRewind: null,
    prompts: '',
    callIds: {},
    usage: [],
    unattributed: [],
    totals: zeroUsage(),
    rewinds: 0,
  };
}

/** The search text keeps this many characters of a session's prompts. */
export const MAX_SEARCH_TEXT = 256 * 1024;

const STATUS_OF: Record<TurnOutcome, SessionStatus> = { completed: 'idle', cancelled: 'aborted', failed: 'error', interrupted: 'interrupted' };

/**
 * Applies one record of a main log, in file order (docs/reference.md, Wire records), changing
 * `fold` in place and returning it; `offset` and `length` (newline excluded) say where its line
 * lies. The one fold of Braid: the writer runs it on each record it appends and the index on each
 * record it reads back, so a live summary and a rebuilt one cannot differ. No I/O; unknown records
 * change nothing but the time.
 */
export function applyRecord(fold: LogFold, record: WireRecord, offset: number, length: number): LogFold {
  const line = { offset, end: offset + length + 1 };
  // A gc record is housekeeping, an imported record says when Braid read the source, and a side
  // call's usage (a /btw question, a next-prompt suggestion) left the conversation alone: none
  // touched the session (its place in the lists stays, an imported session keeps its own times).
  if (isTime(record.ts) && record.t !== 'gc' && record.t !== 'imported' && !isSideCall(record)) {
    // a damaged or hand-made record's impossible time is no time
    if (fold.startedAt === 0) fold.startedAt = record.ts;
    if (record.ts > fold.lastTs) fold.lastTs = record.ts;
  }
  if (!isKnown(record)) return fold;
  switch (record.t) {
    case 'agent':
      if (fold.sessionId === null && record.agentId === 'main') {
        fold.sessionId = record.sessionId ?? null;
        fold.workspaceDir = record.workspaceDir ?? '';
      }
      break;
    case 'forked':
      if (typeof record.from.sessionId !== 'string') break;
      fold.forkedFrom = forkSource(record.from);
      fold.forkedAt.push(offset);
      settle(fold, record.from.sessionId);
      if (typeof fold.lastRewind === 'object' && fold.lastRewind) fold.lastRewind = 'went-on'; // a fork's copy: the source's rewind is not the fork's to undo
      break;
    case 'rewind':
      rewind(fold, record.toTurn, record.messageId, offset);
      break;
    case 'undo_rewind':
      undoRewind(fold);
      break;
    case 'usage':
      countCall(fold, record);
      break;
    case 'imported':
    case 'gc':
    case 'synced':
      break; // where the session came from, blobs removed, which machine made records: no turn of their own
    case 'turn_begin': {
      wentOn(fold);
      const turn = turnOf(fold, record.turn, line);
      turn.began = true;
      turn.model = record.model;
      if (typeof record.branch === 'string' && record.branch) turn.branch = record.branch;
      else delete turn.branch;
      break;
    }
    case 'turn_end': {
      const turn = turnOf(fold, record.turn, line);
      turn.outcome = record.outcome;
      turn.error = record.outcome === 'failed' ? (record.error ?? 'The turn failed.') : null;
      break;
    }
    case 'message':
      wentOn(fold);
      noteMessage(fold, turnOf(fold, record.turn, line), record);
      break;
    case 'memory':
      if (record.turn > 0) turnOf(fold, record.turn, line); // one written before the first turn belongs to none
      break;
    case 'relinked':
      fold.workspaceDir = record.to; // the folder moved (braid relink): a state rebuilt from the log names the new one
      break;
    case 'file_change':
      turnOf(fold, record.turn, line);
      if (isChangeUndo(record)) fold.changeUndosAt.push(offset);
      break;
    default:
      turnOf(fold, record.turn, line); // tool, compaction, context: the turn exists
  }
  return fold;
}

/**
 * Folds records just appended, as a reader will read them back (a type this version does not know,
 * a record missing what replay needs), so a live fold is the one rebuilt from disk.
 */
export function foldWritten(fold: LogFold, lines: readonly WrittenLine[]): LogFold {
  for (const { record, offset, length } of lines) {
    const read = parseRecordLine(JSON.stringify(record));
    if ('record' in read) applyRecord(fold, read.record, offset, length);
  }
  return fold;
}

/** The facts a session's views show, as its fold says them. */
export interface LogFacts {
  status: SessionStatus;
  error: { message: string; source: string } | null;
  /** Effective turns that began. */
  turnCount: number;
  /** The model of the last effective turn that named one. */
  model: ModelSnapshot | null;
  /** The git branch of the last effective turn that recorded one. */
  branch: string | null;
  /** The branches the effective turns recorded, each once, in turn order. */
  branches: string[];
  usage: UsageTotals;
  firstPrompt: string;
  lastPreview: string;
  messageCount: number;
  /** The number the next turn gets, and a turn that began without ending. */
  nextTurn: number;
  openTurn: number | null;
}

/** Reads the facts out of a fold. */
export function factsOf(fold: LogFold): LogFacts {
  const last = fold.turns.at(-1);
  const begun = fold.turns.filter((t) => t.began);
  const open = begun.filter((t) => t.outcome === null).at(-1);
  return {
    status: !last ? 'idle' : last.outcome === null ? (last.began ? 'running' : 'idle') : STATUS_OF[last.outcome],
    error: last?.outcome === 'failed' ? { message: last.error ?? 'The turn failed.', source: 'turn' } : null,
    turnCount: begun.length,
    model: [...begun].reverse().find((t) => t.model)?.model ?? null,
    branch: [...begun].reverse().find((t) => t.branch)?.branch ?? null,
    branches: [...new Set(begun.flatMap((t) => t.branch ?? []))],
    usage: { ...fold.totals },
    firstPrompt: fold.turns.find((t) => t.firstPrompt !== null)?.firstPrompt ?? '',
    lastPreview: [...fold.turns].reverse().find((t) => t.lastPreview !== null)?.lastPreview ?? '',
    messageCount: fold.turns.reduce((n, t) => n + t.messages, 0),
    nextTurn: (last?.turn ?? 0) + 1,
    openTurn: open ? open.turn : null,
  };
}

/**
 * The model's todo list as of the fold's effective turns: the newest todo_write call's, with its
 * turn; null when no effective turn made one (a rewind before the first call drops the list).
 */
export function todoListOf(fold: LogFold): TodoList | null {
  for (let i = fold.turns.length - 1; i >= 0; i--) {
    const t = fold.turns[i]!;
    if (t.todos) return { turn: t.turn, items: t.todos };
  }
  return null;
}

/** The usage buckets of a fold: calls still unattributed are the session's own (`sessionId`). */
export function usageOf(fold: LogFold, sessionId: string): UsageBucket[] {
  const buckets = fold.usage.map((b) => ({ ...b }));
  for (const b of fold.unattributed) mergeBucket(buckets, { ...b, origin: sessionId });
  return buckets;
}

/** The facts of the turn numbered `turn`, added in number order when the fold has not met it yet; its span takes in `line`. */
function turnOf(fold: LogFold, turn: number, line: { offset: number; end: number }): TurnFacts {
  const facts = findTurn(fold.turns, turn) ?? insertTurn(fold.turns, newTurn(turn, line.offset));
  facts.start = Math.min(facts.start, line.offset);
  facts.end = Math.max(facts.end, line.end);
  return facts;
}

function findTurn(turns: readonly TurnFacts[], turn: number): TurnFacts | undefined {
  // Most records belong to the newest turn.
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.turn <= turn) return turns[i]!.turn === turn ? turns[i] : undefined;
  return undefined;
}

/** Adds a turn in number order (a record of an older turn, appended after a newer one began, finds its place). */
function insertTurn(turns: TurnFacts[], facts: TurnFacts): TurnFacts {
  const at = turns.findIndex((t) => t.turn > facts.turn);
  if (at < 0) return pushed(turns, facts);
  turns.splice(at, 0, facts);
  return facts;
}

function newTurn(turn: number, offset: number): TurnFacts {
  return {
    turn,
    start: offset,
    end: offset,
    began: false,
    model: null,
    messages: 0,
    firstPrompt: null,
    promptChars: 0,
    lastPreview: null,
    outcome: null,
    error: null,
  };
}

/**
 * A `rewind` record at `offset`: the turns from `toTurn` on leave the map, kept aside for an undo.
 * A follow-up (it drops nothing while the last rewind can still be undone) joins that rewind.
 */
function rewind(fold: LogFold, toTurn: number, messageId: string, offset: number): void {
  fold.rewinds++;
  const dropped = fold.turns.filter((t) => t.turn >= toTurn);
  const last = fold.lastRewind;
  if (dropped.length === 0 && typeof last === 'object' && last) {
    last.records.push(offset);
    return;
  }
  fold.lastRewind = { toTurn, messageId, dropped, prompts: fold.prompts, records: [offset] };
  fold.turns = fold.turns.filter((t) => t.turn < toTurn);
  fold.prompts = fold.prompts.slice(0, Math.min(MAX_SEARCH_TEXT, Math.max(0, promptLength(fold.turns) - 1)));
}

/** An `undo_rewind` record: the turns the last rewind dropped are back, as they were; one with nothing to undo changes nothing. */
function undoRewind(fold: LogFold): void {
  const last = fold.lastRewind;
  if (typeof last !== 'object' || !last) return;
  for (const t of last.dropped) if (!findTurn(fold.turns, t.turn)) insertTurn(fold.turns, t);
  fold.prompts = last.prompts;
  fold.lastRewind = 'undone';
}

/** A turn began or a message came: the last rewind can no longer be undone. */
function wentOn(fold: LogFold): void {
  if (typeof fold.lastRewind === 'object' && fold.lastRewind) fold.lastRewind = 'went-on';
}

function pushed<T>(list: T[], item: T): T {
  list.push(item);
  return item;
}

function noteMessage(fold: LogFold, turn: TurnFacts, record: MessageRecord): void {
  const message: Message = record.message;
  turn.messages++;
  // Context another tool injected as a user message is no prompt: not a preview, not searched as one.
  if (message.role === 'user' && injectedOf(record) === null) {
    const text = promptText(message);
    turn.firstPrompt ??= previewOf(text);
    if (fold.prompts.length < MAX_SEARCH_TEXT) {
      // The prompt cut before it is joined: joining a huge prompt first would copy all of it. Every
      // prompt after the first is joined by a line break, an empty one too: a rewind or a fork cuts
      // the text at the kept turns' promptChars.
      const before = hasPrompt(fold.turns, turn) ? `${fold.prompts}\n` : '';
      fold.prompts = before + text.slice(0, MAX_SEARCH_TEXT - before.length);
    }
    turn.promptChars += text.length + 1;
  } else if (message.role === 'assistant') {
    const text = messageText(message);
    if (text.trim()) turn.lastPreview = previewOf(text);
  } else if (message.role === 'toolResult' && message.toolName === TODO_TOOL && !message.isError) {
    // The list the tool accepted, from its result: a call it refused changed nothing.
    const items = todoItemsOf(message.details);
    if (items) turn.todos = items;
  }
}

/** Whether a prompt was noted before in `turn` or a turn before it (turns are in number order). */
function hasPrompt(turns: readonly TurnFacts[], turn: TurnFacts): boolean {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.turn <= turn.turn && turns[i]!.promptChars > 0) return true;
  return false;
}

function promptLength(turns: readonly TurnFacts[]): number {
  return turns.reduce((n, t) => n + t.promptChars, 0);
}

function countCall(fold: LogFold, record: UsageRecord): void {
  const key = `#${callId(record)}`; // prefixed: no id can name a property every object has
  if (Object.hasOwn(fold.callIds, key)) return; // a copy: a fork's log or undo's re-appended records
  fold.callIds[key] = 1;
  addToTotals(fold.totals, record);
  addUsage(fold.unattributed, record, '');
}

/** A `forked` record: the calls before it were made by its source. */
function settle(fold: LogFold, origin: string): void {
  for (const b of fold.unattributed) mergeBucket(fold.usage, { ...b, origin });
  fold.unattributed = [];
}

function mergeBucket(buckets: UsageBucket[], add: UsageBucket): void {
  const b = buckets.find((x) => x.origin === add.origin && x.day === add.day && x.provider === add.provider && x.model === add.model);
  if (!b) {
    buckets.push({ ...add });
    return;
  }
  b.calls += add.calls;
  addToTotals(b, add);
}
