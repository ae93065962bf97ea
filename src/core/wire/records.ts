import type { Message } from '@mariozechner/pi-ai';
import { isCommitId } from '../git/headCommit';
import type { TurnMode } from './turnMode';

/** The wire format's version; readers read what they know of higher versions. */
export const WIRE_VERSION = 1;

/** Fields every record has. */
interface Base {
  readonly v: number;
  readonly ts: number;
}

/** The model a turn runs with, snapshotted at its start. */
export interface ModelSnapshot {
  readonly provider: string;
  readonly id: string;
  readonly thinking: string;
}

/** First line of every log: which agent writes it. The main agent also names its session and workspace, so a session can be rebuilt from its logs alone. */
export interface AgentRecord extends Base {
  readonly t: 'agent';
  readonly agentId: string;
  readonly parentAgentId: string | null;
  readonly purpose: string;
  readonly sessionId?: string;
  readonly workspaceDir?: string;
}

/** How the id of a message imported from another agent begins: Braid saw none of the file changes of its turn, so a rewind restores no file of it. */
export const IMPORTED_MESSAGE = 'msg-imp-';

export interface TurnBeginRecord extends Base {
  readonly t: 'turn_begin';
  readonly turn: number;
  readonly promptId: string;
  readonly model: ModelSnapshot | null;
  /** What the turn was allowed (Ask, Plan, Agent, Auto-accept edits); absent in logs written before modes: Agent. */
  readonly mode?: TurnMode;
  /**
   * The system prompt and the tools the turn's calls send, each a blob of the session (the
   * tools as a list of each one's name and the hash of its definition): what a prompt cache
   * depends on, kept so that a break is explained after the session is opened again.
   */
  readonly prompt?: { readonly system: string; readonly tools: string };
  /** Set on a turn Braid started itself: `goal`, a goal run's continuation (its prompt is Braid's, not the user's). */
  readonly auto?: 'goal';
  /**
   * The git branch the workspace was on as the turn began (`git branch --show-current`, through
   * the repository's cached facts); absent outside a repository, on a detached HEAD, in an
   * untrusted workspace (no git runs there) and in logs written before Braid recorded it.
   */
  readonly branch?: string;
}

/**
 * Context another tool put in its conversation as a user-role message that no person typed (its
 * environment, instructions, a command's output, a reminder, an interruption marker): kept
 * verbatim for the model, shown collapsed, never a title or a turn's prompt.
 */
export interface InjectedContext {
  /** The tool that added it (claude-code, codex, pi, opencode). */
  readonly by: string;
  /** What it is: the wrapper's tag (`environment_context`, `system-reminder`), or a word (`interrupted`, `command-output`). */
  readonly kind: string;
}

/** A finished kernel message (user, assistant or toolResult). */
export interface MessageRecord extends Base {
  readonly t: 'message';
  readonly turn: number;
  readonly id: string;
  readonly message: Message;
  /** Set on an imported user-role message that is context, not a prompt (absent: a prompt, or no user message). */
  readonly injected?: InjectedContext;
}

/** The injected context a message record carries, when it carries a well-formed one. */
export function injectedOf(record: { readonly injected?: unknown }): InjectedContext | null {
  const x = record.injected as { by?: unknown; kind?: unknown } | undefined;
  return x && typeof x === 'object' && typeof x.by === 'string' && typeof x.kind === 'string' ? { by: x.by, kind: x.kind } : null;
}

/** Whether a message record is a prompt: a user message that is not injected context. */
export function isPromptRecord(record: { readonly message: Message; readonly injected?: unknown }): boolean {
  return record.message.role === 'user' && injectedOf(record) === null;
}

/** The tokens and cost of one model call. */
export interface UsageRecord extends Base {
  readonly t: 'usage';
  readonly turn: number;
  /**
   * The call's stable id: the id of the assistant message it answered with (a fresh id for a
   * compaction summary or a side question). Copies of the record (a fork's copy of the log, the
   * records undo appends again) keep it, so totals count each call once.
   */
  readonly messageId: string;
  readonly provider: string;
  readonly model: string;
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly reasoning: number;
  readonly cost: number;
  readonly latencyMs: number;
  readonly stopReason: string;
  /** Set for calls that are not answers of the conversation: `compaction`, `memory` (the session memory's extraction), `subagent:<agentId>`, `side-question`, `suggestion` (a next-prompt suggestion). */
  readonly purpose?: string;
}

export interface ToolRecord extends Base {
  readonly t: 'tool';
  readonly turn: number;
  readonly toolCallId: string;
  readonly name: string;
  readonly phase: 'start' | 'end';
  readonly isError?: boolean;
}

export interface FileChangeRecord extends Base {
  readonly t: 'file_change';
  readonly turn: number;
  readonly toolCallId: string;
  readonly path: string;
  /** Blob hash of the file before the first write of the turn; null when it did not exist. */
  readonly before: string | null;
  readonly after: string | null;
  /**
   * The real path of the workspace folder `path` is relative to. Absent in logs written before
   * Braid recorded it: the session's workspace folder then.
   */
  readonly root?: string;
  /** Folders the write had to create (relative to `root`, outermost first): a rewind removes them when empty. */
  readonly createdDirs?: string[];
}

/** The tool call id of a `file_change` an Undo from the Changes list wrote starts so. */
export const UNDO_CALL = 'undo_';

/** The tool call id of the `file_change` of an undone Undo starts so: a change like a tool's, listed again in both lists. */
export const REDO_CALL = 'redo_';

/** Whether a `file_change` is an Undo from the Changes list or its undo (the user's, not a tool's). */
export function isChangeUndo(record: Pick<FileChangeRecord, 'toolCallId'>): boolean {
  return typeof record.toolCallId === 'string' && (record.toolCallId.startsWith(UNDO_CALL) || record.toolCallId.startsWith(REDO_CALL));
}

/** Whether a `file_change` line, laid out as the writer writes it, is one {@link isChangeUndo} says so of (its call id follows its turn). */
export function isChangeUndoLine(buf: Buffer, start: number, end: number): boolean {
  const line = buf.subarray(start, end);
  return line.includes(UNDO_CALL_BYTES) || line.includes(REDO_CALL_BYTES);
}

const UNDO_CALL_BYTES = Buffer.from(`"toolCallId":"${UNDO_CALL}`);
const REDO_CALL_BYTES = Buffer.from(`"toolCallId":"${REDO_CALL}`);

/**
 * The user kept a file as it is (Keep in the Changes list): the file's changes so far leave the
 * list, and later ones are shown against this image. `turn` is the session's last turn then.
 */
export interface FileReviewRecord extends Base {
  readonly t: 'file_review';
  readonly turn: number;
  readonly path: string;
  /** As in `file_change`: the real path of the file's workspace folder. */
  readonly root?: string;
  readonly decision: 'keep';
}

/**
 * A commit made while a turn ran (HEAD moved during it: by the agent's shell, or by the user in a
 * terminal), written just before the turn's end, one record per commit, oldest first.
 */
export interface CommitRecord extends Base {
  readonly t: 'commit';
  readonly turn: number;
  /** The commit's id and its parents' ids. */
  readonly commit: string;
  readonly parents: readonly string[];
  /** The commit's time (its committer date), in milliseconds. */
  readonly at: number;
  readonly subject: string;
  /** The real path of the work tree's top: `files` are relative to it, with `/` between folders. */
  readonly root: string;
  /** What the commit changed against its first parent: git's status letter (A, M, D, T) and the path. */
  readonly files: readonly { readonly status: string; readonly path: string }[];
  /** Files the commit changed beyond those listed (a record keeps at most a thousand). */
  readonly moreFiles?: number;
}

export type TurnOutcome = 'completed' | 'failed' | 'cancelled' | 'interrupted';

export interface TurnEndRecord extends Base {
  readonly t: 'turn_end';
  readonly turn: number;
  readonly outcome: TurnOutcome;
  readonly error?: string;
}

export interface ForkedRecord extends Base {
  readonly t: 'forked';
  /** `agentId`: the fork holds that subagent's conversation (of turn `turn`), not the session's. */
  readonly from: { readonly sessionId: string; readonly turn: number | null; readonly agentId?: string };
  /**
   * The records before this one came from a session pulled from a git remote (another machine's
   * log): their file changes were never made here, so no rewind or Undo acts on them.
   */
  readonly pulled?: true;
}

/** Whether a record is a `forked` record marking the records before it as another machine's ({@link ForkedRecord.pulled}). */
export function marksPulled(record: WireRecord): boolean {
  return record.t === 'forked' && (record as { pulled?: unknown }).pulled === true;
}

export interface RewindRecord extends Base {
  readonly t: 'rewind';
  readonly toTurn: number;
  readonly messageId: string;
  readonly files: boolean;
}

/**
 * The session's last rewind (with its follow-ups) undone, with nothing between them: the turns it
 * dropped are effective again, as they were, and the files it restored got back the images they
 * had just before it (the rewind records name them). Written in place of the dropped records
 * themselves, so an undo grows the log by one line.
 */
export interface UndoRewindRecord extends Base {
  readonly t: 'undo_rewind';
  /** The `toTurn` of the rewind undone. */
  readonly toTurn: number;
}

/**
 * The effective history before `firstKeptMessageId` was summarized (docs/reference.md, Wire records): the model sees
 * `summary` and then the messages from that one on. `turn` is the turn it was made in (a rewind
 * to that turn or before drops it); the records before it stay in the log untouched.
 */
export interface CompactionRecord extends Base {
  readonly t: 'compaction';
  readonly turn: number;
  readonly summary: string;
  readonly firstKeptMessageId: string;
  /** How many effective messages the summary replaced. */
  readonly summarized: number;
}

/** What a fact of the session memory is (docs/reference.md, Session memory). */
export type MemoryKind = 'decision' | 'constraint' | 'file' | 'preference' | 'note';

/** One durable fact of the session memory. */
export interface MemoryFact {
  readonly kind: MemoryKind;
  readonly text: string;
}

/**
 * The session memory as of now (docs/reference.md, Session memory): the whole list of facts,
 * replacing the one before. `by` says who wrote it: the model (extracted at a compaction or on
 * request) or the user (an edit). `turn` is the turn it was made in, as for a compaction (0
 * before the first turn): a rewind before it drops it.
 */
export interface MemoryRecord extends Base {
  readonly t: 'memory';
  readonly turn: number;
  readonly facts: readonly MemoryFact[];
  readonly by: 'model' | 'user';
}

/** One thing the user attached to a prompt, as it went to the model. */
export interface ContextItem {
  readonly kind: 'file' | 'selection' | 'folder' | 'editor' | 'problems' | 'gitDiff' | 'image' | 'mcpResource';
  readonly label: string;
  /** Workspace-relative path of a file, selection, folder or editor. */
  readonly path?: string;
  /** First and last line of a selection (1-based). */
  readonly lines?: readonly [number, number];
  /** An MCP server's resource, as `server:uri`. */
  readonly uri?: string;
  /** Characters of it the model got. */
  readonly chars: number;
  /** Cut to the limits (docs/reference.md, Turns and prompts). */
  readonly truncated: boolean;
  /** An image's blob (blobs/<aa>/<sha256>) and type. */
  readonly blob?: string;
  readonly mimeType?: string;
}

/** What the user attached to the turn's prompt; written right after turn_begin, before the user message. */
export interface ContextRecord extends Base {
  readonly t: 'context';
  readonly turn: number;
  readonly items: readonly ContextItem[];
}

/** Where an imported session came from (docs/reference.md, Imported sessions); the newest one is what was imported so far. */
export interface ImportedRecord extends Base {
  readonly t: 'imported';
  /** The tool that wrote the source: claude-code, codex, pi or opencode. */
  readonly tool: string;
  /** The source file (or folder) as found, and its session's id in that tool. */
  readonly file: string;
  readonly sourceId: string;
  /** Bytes of the source read, and the SHA-256 of those bytes. */
  readonly size: number;
  readonly sha256: string;
  readonly importer: number;
  /**
   * Source turns imported so far and the messages of the last of them (a re-import appends after
   * these), and the SHA-256 of the source ids of the turns before the last (a re-import checks
   * the source still holds them). In the record that ends an import; the one at the head has none.
   */
  readonly turns?: number;
  readonly lastTurnMessages?: number;
  readonly earlierTurns?: string;
}

/** The session's folder moved under another workspace key (`braid relink`): the workspace folder it had, and the one it has now. */
export interface RelinkedRecord extends Base {
  readonly t: 'relinked';
  readonly from: string;
  readonly to: string;
}

/** Why a call's cached input fell (docs/reference.md, Prompt cache breaks). */
export type CacheBreakCause = 'model' | 'thinking' | 'system-prompt' | 'tools' | 'compaction' | 'rewind' | 'history-rewritten' | 'expired' | 'unknown';

/**
 * A model call read far less of its prompt from the provider's cache than the call before it of
 * the same agent: the likely cause, and what the drop cost. Written after the call's usage record.
 */
export interface CacheBreakRecord extends Base {
  readonly t: 'cache_break';
  readonly turn: number;
  /** The call's usage id (its answer's message id). */
  readonly messageId: string;
  /** A subagent's call (compared with that subagent's call before); absent: the main agent's. */
  readonly agentId?: string;
  readonly cause: CacheBreakCause;
  /** Which part changed, in a short sentence ("added edit_file", "line 2 of the system prompt"). */
  readonly detail: string;
  /** Tokens the call read from the cache, and what the call before it had cached (read or written). */
  readonly cacheRead: number;
  readonly expected: number;
  /** An estimate of what the tokens not read from the cache cost over their cached price. */
  readonly cost: number;
}

/**
 * Blobs `braid gc` removed from the session's folder (docs/reference.md, Wire records): the file
 * images kept for rewinds of a session untouched for `days` days, or blobs no record names.
 * Written before the files go, through the session's writer lease.
 */
export interface GcRecord extends Base {
  readonly t: 'gc';
  readonly reason: 'untouched' | 'orphaned';
  /** How many blob files, and their bytes. */
  readonly blobs: number;
  readonly bytes: number;
  /** For `untouched`: the days without a change the gc asked for (`--older-than`). */
  readonly days?: number;
}

/**
 * The records since the previous `synced` record (or the log's start) were made on `machine`:
 * written by `braid sync` after it appended another machine's records, and sent with this
 * machine's next records, so every copy of the log says the same. A rewind acts on no file change
 * another machine made (its files are not this machine's), and the blobs were never sent.
 */
export interface SyncedRecord extends Base {
  readonly t: 'synced';
  /** The machine's id (share/machine.json of its data folder). */
  readonly machine: string;
}

/** Every record type this version knows. */
export type KnownRecord =
  | AgentRecord
  | TurnBeginRecord
  | MessageRecord
  | UsageRecord
  | ToolRecord
  | FileChangeRecord
  | FileReviewRecord
  | CommitRecord
  | TurnEndRecord
  | ForkedRecord
  | RewindRecord
  | UndoRewindRecord
  | CompactionRecord
  | MemoryRecord
  | ContextRecord
  | ImportedRecord
  | RelinkedRecord
  | CacheBreakRecord
  | GcRecord
  | SyncedRecord;

/** A record of a type this version does not know: skipped on replay, kept on copy. */
export interface UnknownRecord extends Base {
  readonly t: string;
  readonly unknown: true;
}

export type WireRecord = KnownRecord | UnknownRecord;

/** A record as written, before `v` and `ts` are stamped. */
export type NewRecord = KnownRecord extends infer R ? (R extends KnownRecord ? Omit<R, 'v' | 'ts'> & { ts?: number } : never) : never;

const KNOWN_TYPES = new Set([
  'agent',
  'turn_begin',
  'message',
  'usage',
  'tool',
  'file_change',
  'file_review',
  'commit',
  'turn_end',
  'forked',
  'rewind',
  'undo_rewind',
  'compaction',
  'memory',
  'context',
  'imported',
  'relinked',
  'cache_break',
  'gc',
  'synced',
]);

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x);

/** A message readers can render: a known role with content of the shape that role has (a damaged role or content is a bad line). */
export function isMessage(m: unknown): boolean {
  if (typeof m !== 'object' || m === null) return false;
  const { role, content } = m as { role?: unknown; content?: unknown };
  if (role === 'user' && typeof content === 'string') return true;
  return (role === 'user' || role === 'assistant' || role === 'toolResult') && Array.isArray(content) && content.every(isBlock);
}

/** A content block: the fields of the types Braid knows have their types; blocks of other types are left to readers to skip. */
function isBlock(b: unknown): boolean {
  if (typeof b !== 'object' || b === null || typeof (b as { type?: unknown }).type !== 'string') return false;
  const block = b as Record<string, unknown>;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string';
    case 'thinking':
      return typeof block.thinking === 'string';
    case 'toolCall':
      return typeof block.id === 'string' && typeof block.name === 'string' && typeof block.arguments === 'object' && block.arguments !== null;
    case 'image':
      // In the log an image names its blob; the kernel's messages carry its data.
      return (typeof block.data === 'string' || typeof block.blob === 'string') && typeof block.mimeType === 'string';
    default:
      return true;
  }
}

/** An item of a context record: what the transcript's chip shows. */
function isContextItem(i: unknown): boolean {
  if (typeof i !== 'object' || i === null) return false;
  const item = i as Record<string, unknown>;
  return typeof item.kind === 'string' && typeof item.label === 'string' && isInt(item.chars) && typeof item.truncated === 'boolean';
}

/** A fact of a memory record: a kind and its text (a kind this version does not know is read as a note). */
function isMemoryFact(f: unknown): boolean {
  return typeof f === 'object' && f !== null && typeof (f as { kind?: unknown }).kind === 'string' && typeof (f as { text?: unknown }).text === 'string';
}

/** Checks the fields replay relies on; a known type without them is treated as a bad line. */
function hasRequiredFields(r: Record<string, unknown>): boolean {
  switch (r.t) {
    case 'agent':
      return typeof r.agentId === 'string';
    case 'turn_begin':
      return isInt(r.turn);
    case 'message':
      return isInt(r.turn) && typeof r.id === 'string' && isMessage(r.message);
    case 'usage':
      return isInt(r.turn);
    case 'tool':
      return isInt(r.turn) && typeof r.toolCallId === 'string';
    case 'file_change':
      return isInt(r.turn) && typeof r.path === 'string';
    case 'file_review':
      return isInt(r.turn) && typeof r.path === 'string' && r.decision === 'keep';
    case 'commit':
      return (
        isInt(r.turn) &&
        isCommitId(r.commit) &&
        Array.isArray(r.parents) &&
        r.parents.every(isCommitId) &&
        typeof r.root === 'string' &&
        Array.isArray(r.files) &&
        r.files.every((f: unknown) => typeof (f as { path?: unknown })?.path === 'string' && typeof (f as { status?: unknown }).status === 'string')
      );
    case 'turn_end':
      return isInt(r.turn) && typeof r.outcome === 'string';
    case 'forked':
      return typeof r.from === 'object' && r.from !== null;
    case 'rewind':
    case 'undo_rewind':
      return isInt(r.toTurn) && r.toTurn >= 1;
    case 'compaction':
      return typeof r.summary === 'string' && typeof r.firstKeptMessageId === 'string' && isInt(r.turn);
    case 'memory':
      return isInt(r.turn) && r.turn >= 0 && (r.by === 'model' || r.by === 'user') && Array.isArray(r.facts) && r.facts.every(isMemoryFact);
    case 'context':
      return isInt(r.turn) && Array.isArray(r.items) && r.items.every(isContextItem);
    case 'imported':
      return typeof r.tool === 'string' && typeof r.sourceId === 'string';
    case 'relinked':
      return typeof r.from === 'string' && typeof r.to === 'string';
    case 'cache_break':
      return (
        isInt(r.turn) &&
        typeof r.messageId === 'string' &&
        typeof r.cause === 'string' &&
        typeof r.detail === 'string' &&
        [r.cacheRead, r.expected, r.cost].every((n) => typeof n === 'number' && Number.isFinite(n))
      );
    case 'gc':
      return typeof r.reason === 'string' && isInt(r.blobs) && isInt(r.bytes);
    case 'synced':
      return typeof r.machine === 'string';
    default:
      return true;
  }
}

/** Why a line could not be read. */
export type BadLineReason = 'not-json' | 'not-a-record' | 'missing-fields';

/** Parses one line of a wire log. Unknown types and higher versions parse; what cannot be read says why. */
export function parseRecordLine(line: string): { record: WireRecord } | { bad: BadLineReason } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { bad: 'not-json' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { bad: 'not-a-record' };
  const r = value as Record<string, unknown>;
  if (typeof r.t !== 'string' || typeof r.v !== 'number') return { bad: 'not-a-record' };
  if (!KNOWN_TYPES.has(r.t)) return { record: { ...(r as object), unknown: true } as UnknownRecord };
  if (!hasRequiredFields(r)) return { bad: 'missing-fields' };
  return { record: r as unknown as KnownRecord };
}

export function isKnown(record: WireRecord): record is KnownRecord {
  return !('unknown' in record && record.unknown === true);
}
