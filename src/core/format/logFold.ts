import type { Message } from '@mariozechner/pi-ai';
import { callId } from '../wire/replay';
import { injectedOf, isKnown, type MessageRecord, type ModelSnapshot, type TurnOutcome, type UsageRecord, type WireRecord } from '../wire/records';
import { messageText, previewOf, promptText } from './messageText';
import { addToTotals, addUsage, type UsageBucket } from './usage';
import { forkSource, isTime, zeroUsage, type ForkSource, type SessionStatus, type UsageTotals } from './sessionState';
import { TODO_TOOL, todoItemsOf, type TodoItem, type TodoList } from './todoList';

/** What the fold keeps of one effective turn: enough to answer for the session after a rewind drops later turns. */
export interface TurnFacts {
  turn: number;
  /** Whether its turn_begin was seen (a fork's copy or a hand-made log may hold messages of a turn without one). */
  began: boolean;
  model: ModelSnapshot | null;
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

/**
 * Turns a compact fold keeps as totals only (see {@link compactFold}): what the facts need of
 * them, merged in order.
 */
export interface EarlierTurns {
  lastTurn: number;
  began: number;
  messages: number;
  promptChars: number;
  firstPrompt: string | null;
  lastPreview: string | null;
  model: ModelSnapshot | null;
  /** The last of them that began and never ended. */
  open: number | null;
  /** The todo list the last of them with a todo_write call left; absent when none made one. */
  todos?: TodoList;
}

/**
 * The running summary of one session's main log: everything the session's derived facts (status,
 * turn count, usage, model, previews, search text) are computed from. It is plain JSON, so the
 * index keeps it beside the row and a writer can go on folding from where the index left off.
 */
export interface LogFold {
  sessionId: string | null;
  workspaceDir: string;
  /** Time of the log's first record (its `agent` line); 0 before any. */
  startedAt: number;
  /** Time of the newest record; 0 before any. */
  lastTs: number;
  forkedFrom: ForkSource | null;
  /** Effective turns, in order (a rewind drops the later ones). */
  turns: TurnFacts[];
  /** Set in a compact fold: the effective turns before `turns`, as totals. */
  earlier: EarlierTurns | null;
  /**
   * The records came in turn order: none of a turn below the newest effective one, and no turn
   * that began or ended twice (a rewind lowers the newest turn). While it holds, each effective
   * turn's records lie together, after the turns before it, so a reader can find a turn's
   * boundaries from the end of the log. Absent in folds kept before Braid recorded it: unknown.
   */
  ordered?: boolean;
  /**
   * Set when a record needed what a compact fold left out (a rewind, a record of an earlier
   * turn): the fold no longer says the truth, and its owner reads the log again.
   */
  stale: boolean;
  /** User prompts of the effective turns, joined by line breaks, cut at {@link MAX_SEARCH_TEXT}. */
  prompts: string;
  /** Ids of the model calls counted, as keys `#<id>` (copies of a usage record, from a fork or an undo, count once). */
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
    turns: [],
    earlier: null,
    ordered: true,
    stale: false,
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
 * `fold` in place and returning it. The one fold of Braid: the writer runs it on each record it
 * appends and the index on each record it reads back, so a live summary and a rebuilt one cannot
 * differ. No I/O; unknown records change nothing but the time.
 */
export function applyRecord(fold: LogFold, record: WireRecord): LogFold {
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
      settle(fold, record.from.sessionId);
      break;
    case 'rewind':
      fold.rewinds++;
      // The totals of dropped turns kept as earlier turns cannot be taken apart; with a turn in
      // detail left, a rewind into the detailed turns drops only those.
      if (fold.earlier && !fold.turns.some((t) => t.turn < record.toTurn)) fold.stale = true;
      fold.turns = fold.turns.filter((t) => t.turn < record.toTurn);
      fold.prompts = fold.prompts.slice(0, Math.min(MAX_SEARCH_TEXT, Math.max(0, (fold.earlier?.promptChars ?? 0) + promptLength(fold.turns) - 1)));
      break;
    case 'usage':
      countCall(fold, record);
      break;
    case 'imported':
    case 'gc':
      break; // where the session came from, blobs removed: no turn of their own
    case 'turn_begin': {
      const turn = turnOf(fold, record.turn);
      if (turn.began) fold.ordered = false;
      turn.began = true;
      turn.model = record.model;
      break;
    }
    case 'turn_end': {
      const turn = turnOf(fold, record.turn);
      if (turn.outcome !== null) fold.ordered = false;
      turn.outcome = record.outcome;
      turn.error = record.outcome === 'failed' ? (record.error ?? 'The turn failed.') : null;
      break;
    }
    case 'message':
      noteMessage(fold, turnOf(fold, record.turn), record);
      break;
    case 'memory':
      if (record.turn > 0) turnOf(fold, record.turn); // one written before the first turn belongs to none
      break;
    case 'relinked':
      fold.workspaceDir = record.to; // the folder moved (braid relink): a state rebuilt from the log names the new one
      break;
    default:
      turnOf(fold, record.turn); // tool, file_change, compaction, context: the turn exists
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
  usage: UsageTotals;
  firstPrompt: string;
  lastPreview: string;
  messageCount: number;
  /** The number the next turn gets, and a turn that began without ending. */
  nextTurn: number;
  openTurn: number | null;
}

/** Reads the facts out of a fold (a compact one's earlier turns counted from their totals). */
export function factsOf(fold: LogFold): LogFacts {
  const last = fold.turns.at(-1);
  const begun = fold.turns.filter((t) => t.began);
  const open = begun.filter((t) => t.outcome === null).at(-1);
  const earlier = fold.earlier;
  return {
    status: !last ? 'idle' : last.outcome === null ? (last.began ? 'running' : 'idle') : STATUS_OF[last.outcome],
    error: last?.outcome === 'failed' ? { message: last.error ?? 'The turn failed.', source: 'turn' } : null,
    turnCount: (earlier?.began ?? 0) + begun.length,
    model: [...begun].reverse().find((t) => t.model)?.model ?? earlier?.model ?? null,
    usage: { ...fold.totals },
    firstPrompt: earlier?.firstPrompt ?? fold.turns.find((t) => t.firstPrompt !== null)?.firstPrompt ?? '',
    lastPreview: [...fold.turns].reverse().find((t) => t.lastPreview !== null)?.lastPreview ?? earlier?.lastPreview ?? '',
    messageCount: (earlier?.messages ?? 0) + fold.turns.reduce((n, t) => n + t.messages, 0),
    nextTurn: (last?.turn ?? earlier?.lastTurn ?? 0) + 1,
    openTurn: open ? open.turn : (earlier?.open ?? null),
  };
}

/**
 * The fold as the index keeps it: the last turn in detail, the ones before it as totals. Its facts
 * are the full fold's, and folding on from it gives what folding on from the full one would,
 * until a record needs a dropped turn's detail (a rewind): the fold is then `stale`.
 */
export function compactFold(fold: LogFold): LogFold {
  if (fold.turns.length <= 1) return fold;
  let earlier = fold.earlier ?? { lastTurn: 0, began: 0, messages: 0, promptChars: 0, firstPrompt: null, lastPreview: null, model: null, open: null };
  for (const t of fold.turns.slice(0, -1)) {
    earlier = {
      lastTurn: t.turn,
      began: earlier.began + (t.began ? 1 : 0),
      messages: earlier.messages + t.messages,
      promptChars: earlier.promptChars + t.promptChars,
      firstPrompt: earlier.firstPrompt ?? t.firstPrompt,
      lastPreview: t.lastPreview ?? earlier.lastPreview,
      model: t.began && t.model ? t.model : earlier.model,
      open: t.began && t.outcome === null ? t.turn : earlier.open,
      ...(t.todos ? { todos: { turn: t.turn, items: t.todos } } : earlier.todos ? { todos: earlier.todos } : {}),
    };
  }
  return { ...fold, turns: fold.turns.slice(-1), earlier };
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
  return fold.earlier?.todos ?? null;
}

/** The usage buckets of a fold: calls still unattributed are the session's own (`sessionId`). */
export function usageOf(fold: LogFold, sessionId: string): UsageBucket[] {
  const buckets = fold.usage.map((b) => ({ ...b }));
  for (const b of fold.unattributed) mergeBucket(buckets, { ...b, origin: sessionId });
  return buckets;
}

/** The facts of the turn numbered `turn`, added at the end when the fold has not met it yet. */
function turnOf(fold: LogFold, turn: number): TurnFacts {
  const last = fold.turns.at(-1);
  if (last?.turn === turn) return last; // most records belong to the newest turn
  const newest = last?.turn ?? fold.earlier?.lastTurn ?? 0;
  if (turn > newest && (!fold.earlier || turn > fold.earlier.lastTurn)) return pushed(fold.turns, newTurn(turn));
  if (turn < newest) fold.ordered = false;
  if (fold.earlier && turn <= fold.earlier.lastTurn) {
    fold.stale = true; // a turn a compact fold keeps as totals only
    return newTurn(turn);
  }
  for (let i = fold.turns.length - 1; i >= 0; i--) if (fold.turns[i]!.turn === turn) return fold.turns[i]!;
  // Turns stay in number order (a record of an older turn, appended to it after it ended, finds it above).
  const at = fold.turns.findIndex((t) => t.turn > turn);
  if (at < 0) return pushed(fold.turns, newTurn(turn));
  const facts = newTurn(turn);
  fold.turns.splice(at, 0, facts);
  return facts;
}

function newTurn(turn: number): TurnFacts {
  return { turn, began: false, model: null, messages: 0, firstPrompt: null, promptChars: 0, lastPreview: null, outcome: null, error: null };
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
    turn.promptChars += text.length + 1;
    if (fold.prompts.length < MAX_SEARCH_TEXT) {
      // The prompt cut before it is joined: joining a huge prompt first would copy all of it.
      const before = fold.prompts ? `${fold.prompts}\n` : '';
      fold.prompts = before + text.slice(0, MAX_SEARCH_TEXT - before.length);
    }
  } else if (message.role === 'assistant') {
    const text = messageText(message);
    if (text.trim()) turn.lastPreview = previewOf(text);
  } else if (message.role === 'toolResult' && message.toolName === TODO_TOOL && !message.isError) {
    // The list the tool accepted, from its result: a call it refused changed nothing.
    const items = todoItemsOf(message.details);
    if (items) turn.todos = items;
  }
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
