import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { decodeTime } from 'ulid';
import { writeFileAtomic } from '../fs/atomic';
import { isSessionId } from '../ids';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import type { ModelSnapshot } from '../wire/records';

export type SessionStatus = 'idle' | 'running' | 'error' | 'aborted' | 'interrupted';
export type SessionKind = 'conversation' | 'task' | 'peek';

/** Token usage totals. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  cost: number;
}

/** A prompt waiting in the session's queue (docs/reference.md, Turns and prompts). */
export interface QueuedPrompt {
  readonly promptId: string;
  readonly text: string;
  readonly messageKey?: string;
  readonly queuedAt: number;
}

/** state.json, version 1: the session record, replaced atomically. */
export interface SessionState {
  v: 1;
  id: string;
  title: string;
  titleSource: 'auto' | 'user';
  workspaceDir: string;
  /**
   * Every workspace folder the session's tools have acted in (real paths; the first is
   * workspaceDir's). A rewind restores or deletes files only inside these. Absent in sessions
   * written before Braid kept it: workspaceDir alone then.
   */
  workspaceFolders?: string[];
  workspaceKey: string;
  createdAt: number;
  updatedAt: number;
  status: SessionStatus;
  error: { message: string; source: string } | null;
  kind: SessionKind;
  visibility: 'visible' | 'hidden';
  archived: boolean;
  forkedFrom: { sessionId: string; turn: number | null } | null;
  agents: Array<{ id: string; parentId: string | null; title: string }>;
  model: ModelSnapshot | null;
  queue: QueuedPrompt[];
  paused: { reason: string } | null;
  turnCount: number;
  usage: UsageTotals;
}

export const STATE_VERSION = 1;

export function zeroUsage(): UsageTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 };
}

/** A state.json that cannot be used; the store rebuilds the session from its logs. */
export class StateFileError extends Error {
  override readonly name = 'StateFileError';
}

const STATUSES = new Set(['idle', 'running', 'error', 'aborted', 'interrupted']);
const KINDS = new Set(['conversation', 'task', 'peek']);

const num = (x: unknown, fallback = 0): number => (typeof x === 'number' && Number.isFinite(x) ? x : fallback);
const str = (x: unknown, fallback = ''): string => (typeof x === 'string' ? x : fallback);

/** Times are ms since 1970 and before the year 10000: a Date holds them and ISO 8601 writes them with four digits. */
const END_OF_TIMES = Date.UTC(10000, 0, 1);
const isTime = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x < END_OF_TIMES;

/** When a session was created, from its id (a ULID carries its creation time); 0 when the id cannot say. */
function creationOf(id: string): number {
  try {
    const time = decodeTime(id.slice('ses_'.length));
    return isTime(time) ? time : 0;
  } catch {
    return 0;
  }
}

/** A title is one line: line breaks and runs of spaces become one space. */
const titleOf = (x: unknown): string => str(x).replace(/\s+/g, ' ').trim();

/**
 * The fields of a parsed state.json whose values Braid never writes and {@link normalizeState}
 * reads as something else (a createdAt of 1e308, a title of several lines); `braid doctor`
 * reports them. Empty for anything that is not a state object.
 */
export function implausibleFields(raw: unknown): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [];
  const r = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const field of ['createdAt', 'updatedAt']) {
    if (!isTime(r[field])) problems.push(`${field} is ${JSON.stringify(r[field]) ?? 'missing'}, not a time`);
  }
  if (typeof r.title === 'string' && r.title !== titleOf(r.title)) problems.push('the title spans several lines or has spaces around it');
  if (Array.isArray(r.queue) && r.queue.some((q: { queuedAt?: unknown } | null) => q && !isTime(q.queuedAt))) problems.push('a queued prompt has no valid queuedAt');
  return problems;
}

/** A model snapshot only when it names both provider and id (a damaged one reads as unknown). */
function modelOf(raw: unknown): ModelSnapshot | null {
  const m = raw as Partial<ModelSnapshot> | null | undefined;
  return m && typeof m === 'object' && typeof m.provider === 'string' && typeof m.id === 'string' ? m as ModelSnapshot : null;
}

/**
 * Validates parsed state.json. Required identity fields must be right; everything else falls back
 * to a default, so a state written by a newer version (more fields) still reads. Impossible values
 * get stand-ins ({@link implausibleFields} lists them): a time that is no time reads as the
 * session's creation (from its id), and a title is one line.
 */
export function normalizeState(raw: unknown): SessionState {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new StateFileError('state.json is not an object');
  const r = raw as Record<string, unknown>;
  if (typeof r.id !== 'string' || typeof r.workspaceKey !== 'string') throw new StateFileError('state.json lacks id or workspaceKey');
  if (!isSessionId(r.id) || !isWorkspaceKey(r.workspaceKey)) throw new StateFileError('state.json has a malformed id or workspaceKey (corrupt)');
  const usage = (typeof r.usage === 'object' && r.usage !== null ? r.usage : {}) as Record<string, unknown>;
  const error = r.error as { message?: unknown; source?: unknown } | null | undefined;
  const forked = r.forkedFrom as { sessionId?: unknown; turn?: unknown } | null | undefined;
  const paused = r.paused as { reason?: unknown } | null | undefined;
  const createdAt = isTime(r.createdAt) ? r.createdAt : creationOf(r.id);
  const updatedAt = isTime(r.updatedAt) ? r.updatedAt : createdAt;
  return {
    v: 1,
    id: r.id,
    title: titleOf(r.title),
    titleSource: r.titleSource === 'user' ? 'user' : 'auto',
    workspaceDir: str(r.workspaceDir),
    ...(Array.isArray(r.workspaceFolders) ? { workspaceFolders: (r.workspaceFolders as unknown[]).filter((f): f is string => typeof f === 'string' && f.length > 0) } : {}),
    workspaceKey: r.workspaceKey,
    createdAt,
    updatedAt,
    status: STATUSES.has(r.status as string) ? (r.status as SessionStatus) : 'idle',
    error: error && typeof error.message === 'string' ? { message: error.message, source: str(error.source, 'unknown') } : null,
    kind: KINDS.has(r.kind as string) ? (r.kind as SessionKind) : 'conversation',
    visibility: r.visibility === 'hidden' ? 'hidden' : 'visible',
    archived: r.archived === true,
    forkedFrom: forked && typeof forked.sessionId === 'string' ? { sessionId: forked.sessionId, turn: typeof forked.turn === 'number' ? forked.turn : null } : null,
    agents: Array.isArray(r.agents) ? (r.agents as Array<Record<string, unknown> | null>).flatMap((a) => (a && typeof a.id === 'string' ? [{ id: a.id, parentId: typeof a.parentId === 'string' ? a.parentId : null, title: str(a.title, a.id) }] : [])) : [{ id: 'main', parentId: null, title: 'main' }],
    model: modelOf(r.model),
    queue: Array.isArray(r.queue) ? (r.queue as QueuedPrompt[]).filter((q) => q && typeof q.text === 'string').map((q) => (isTime(q.queuedAt) ? q : { ...q, queuedAt: updatedAt })) : [],
    paused: paused && typeof paused.reason === 'string' ? { reason: paused.reason } : null,
    turnCount: num(r.turnCount),
    usage: {
      input: num(usage.input), output: num(usage.output), cacheRead: num(usage.cacheRead),
      cacheWrite: num(usage.cacheWrite), reasoning: num(usage.reasoning), cost: num(usage.cost),
    },
  };
}

/**
 * Reads and validates state.json; throws StateFileError when missing or unusable. Braid writes it
 * as UTF-8 JSON, so invalid UTF-8 is damage even where JSON.parse would accept the replacement
 * characters. A file inside a session folder must name that folder's session and workspace.
 */
export function readState(file: string): SessionState {
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new StateFileError('state.json is missing');
    if (code === 'EISDIR') throw new StateFileError('state.json is a folder, not a file');
    throw err;
  }
  if (data.length === 0) throw new StateFileError('state.json is empty');
  if (!isUtf8(data)) throw new StateFileError('state.json is not valid UTF-8 (corrupt)');
  let raw: unknown;
  try {
    raw = JSON.parse(data.toString('utf8'));
  } catch {
    throw new StateFileError('state.json is not valid JSON (truncated or corrupt)');
  }
  const state = normalizeState(raw);
  const dir = path.dirname(file);
  if (isSessionId(path.basename(dir)) && (state.id !== path.basename(dir) || state.workspaceKey !== path.basename(path.dirname(dir)))) {
    throw new StateFileError(`state.json names session ${state.id} in ${state.workspaceKey}, not the folder it is in (corrupt or copied by hand)`);
  }
  return state;
}

/** The workspace folders a session's tools have acted in (workspaceDir alone for sessions from before Braid kept them). */
export function sessionFolders(state: Pick<SessionState, 'workspaceDir' | 'workspaceFolders'>): string[] {
  return state.workspaceFolders?.length ? state.workspaceFolders : [state.workspaceDir];
}

/** Writes state.json atomically (temp file, fsync, rename, fsync of the folder); `beforeReplace` as in writeFileAtomic. */
export function writeState(file: string, state: SessionState, beforeReplace?: () => void): void {
  writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, beforeReplace);
}
