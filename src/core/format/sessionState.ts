import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { decodeTime } from 'ulid';
import { writeFileAtomic } from '../fs/atomic';
import { isSessionId } from '../ids';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import type { ModelSnapshot } from '../wire/records';
import type { TurnMode } from '../wire/turnMode';
import { isAttachment, type Attachment } from './attachment';
import { readWriteFailure, type WriteFailure } from './writeFailure';
import { sessionFolderLayout } from './layout';

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
  /** What the user attached, already read (bounded when the turn runs). */
  readonly attachments?: readonly Attachment[];
  readonly queuedAt: number;
  /** The mode it runs in; absent: Agent. */
  readonly mode?: TurnMode;
}

/**
 * Where a session forked into a git worktree runs (docs/architecture.md, Run locations): the
 * repository's checkout it came from, the worktree its tools act in, its branch and the commit
 * the branch started from. `finished` once Finish brought the branch back or dropped it.
 */
export interface WorktreeLocation {
  readonly kind: 'worktree';
  /** The checkout's top folder (real path) the worktree was made from. */
  readonly repository: string;
  /** The worktree's top folder. */
  readonly worktree: string;
  readonly branch: string;
  /** The commit the branch started from (a diff or cherry-pick is against it). */
  readonly base: string;
  /** The workspace key of the session it was forked from (its tree lists the fork too). */
  readonly originKey: string;
  readonly finished?: { readonly at: number; readonly how: 'merge' | 'cherry-pick' | 'discard' };
}

/** What a repository is wherever its folder is: its origin's address and its first commit. */
export interface RepoIdentity {
  readonly remote?: string;
  readonly rootCommit: string;
}

function repoIdentity(x: unknown): RepoIdentity | undefined {
  const r = x as Partial<RepoIdentity> | null | undefined;
  if (!r || typeof r.rootCommit !== 'string' || !/^[0-9a-f]{40,64}$/.test(r.rootCommit)) return undefined;
  return { rootCommit: r.rootCommit, ...(typeof r.remote === 'string' && r.remote ? { remote: r.remote } : {}) };
}

function worktreeLocation(x: unknown): WorktreeLocation | undefined {
  const r = x as Partial<WorktreeLocation> | null | undefined;
  const strings = r && [r.repository, r.worktree, r.branch, r.base, r.originKey].every((v) => typeof v === 'string' && v.length > 0);
  if (!r || r.kind !== 'worktree' || !strings) return undefined;
  const { repository, worktree, branch, base, originKey, finished } = r as WorktreeLocation;
  const done = finished && isTime(finished.at) && ['merge', 'cherry-pick', 'discard'].includes(finished.how);
  return { kind: 'worktree', repository, worktree, branch, base, originKey, ...(done ? { finished: { at: finished.at, how: finished.how } } : {}) };
}

/**
 * state.json, version 2: what the user owns of a session and Braid cannot read from its log
 * (docs/reference.md, Files on disk): identity and run location, the title and where it came
 * from, archive and visibility, the kind, the fork's source, the queue and its pause. Replaced
 * atomically, under the session's lock.
 */
export interface StoredState {
  v: 2;
  id: string;
  workspaceKey: string;
  workspaceDir: string;
  /**
   * Every workspace folder the session's tools have acted in (real paths; the first is
   * workspaceDir's). A rewind restores or deletes files only inside these. Absent in sessions
   * written before Braid kept it: workspaceDir alone then.
   */
  workspaceFolders?: string[];
  /** Absent: the session runs in workspaceDir as it is; a worktree fork's says where its worktree is. */
  runLocation?: WorktreeLocation;
  /** The folders it was recorded under before it was re-linked (braid relink): its records naming them mean workspaceDir now. */
  relinkedFrom?: string[];
  /** The repository its folder held when it was created (a trusted workspace's): a moved folder is found again by it. */
  identity?: RepoIdentity;
  createdAt: number;
  title: string;
  titleSource: 'auto' | 'user';
  kind: SessionKind;
  visibility: 'visible' | 'hidden';
  archived: boolean;
  forkedFrom: ForkSource | null;
  queue: QueuedPrompt[];
  paused: { reason: string } | null;
  /** Set when a log write failed for good (the cause); the next turn saved whole clears it. */
  writeFailure?: WriteFailure;
  /** Set on a session pulled from a git remote (braid pull): read-only here, forkable into a session of this machine. */
  shared?: SharedOrigin;
  /** Where the session stands on each git remote it was pushed to or synced with, by the remote's key ({@link SyncPoint}). */
  synced?: Record<string, SyncPoint>;
}

/**
 * What this machine's log of a session has in common with a git remote's copy: the remote's ref
 * and commit last pushed or pulled, how many bytes of each agent's local log that commit holds,
 * and how many chunks each agent has there. Bytes past it in a local log are this machine's own,
 * not yet pushed (or a `synced` record waiting to go with them).
 */
export interface SyncPoint {
  readonly ref: string;
  readonly commit: string;
  readonly bytes: Readonly<Record<string, number>>;
  readonly chunks: Readonly<Record<string, number>>;
}

/** Where a pulled session came from: the remote, who pushed it from which machine, and what was pulled last. */
export interface SharedOrigin {
  /** The remote as shown (no password). */
  readonly remote: string;
  /** The pushing machine's id (a ULID it made once) and the name it gave. */
  readonly machine: string;
  readonly machineName: string;
  readonly author: string;
  /** The remote's ref and the commit of it pulled last. */
  readonly ref: string;
  readonly commit: string;
  readonly pulledAt: number;
}

function syncPoints(x: unknown): Record<string, SyncPoint> | undefined {
  if (!x || typeof x !== 'object' || Array.isArray(x)) return undefined;
  const points: Record<string, SyncPoint> = {};
  for (const [key, p] of Object.entries(x as Record<string, Partial<SyncPoint> | null>)) {
    const counts = (c: unknown) => !!c && typeof c === 'object' && Object.values(c).every((n) => Number.isSafeInteger(n) && (n as number) >= 0);
    if (!p || typeof p.ref !== 'string' || !/^[0-9a-f]{40,64}$/.test(String(p.commit)) || !counts(p.bytes) || !counts(p.chunks)) continue;
    points[key] = { ref: p.ref, commit: p.commit!, bytes: { ...p.bytes }, chunks: { ...p.chunks } };
  }
  return Object.keys(points).length ? points : undefined;
}

/** Who shared a pulled session, from which machine, as the lists show it: `author@machineName`. */
export function sharedBy(shared: Pick<SharedOrigin, 'author' | 'machineName'>): string {
  return `${shared.author}@${shared.machineName}`;
}

function sharedOrigin(x: unknown): SharedOrigin | undefined {
  const r = x as Partial<SharedOrigin> | null | undefined;
  const strings = r && [r.remote, r.machine, r.machineName, r.author, r.ref, r.commit].every((v) => typeof v === 'string');
  if (!r || !strings || !/^[0-9a-f]{40,64}$/.test(r.commit!) || !isTime(r.pulledAt)) return undefined;
  const { remote, machine, machineName, author, ref, commit, pulledAt } = r as SharedOrigin;
  return { remote, machine, machineName, author, ref, commit, pulledAt };
}

/**
 * The `shared` of the state.json at `file` (undefined: none, or no state.json that reads as JSON).
 * Read without readState's checks: the writer lease asks it of every session it is taken for.
 */
export function sharedOriginAt(file: string): SharedOrigin | undefined {
  const raw = jsonAt(file);
  return typeof raw === 'object' && raw !== null ? sharedOrigin((raw as { shared?: unknown }).shared) : undefined;
}

/**
 * What a pull keeps beside a pulled copy's state.json, in `shared.json`: what a state rebuilt from
 * the log cannot say. The log has no `shared` (and names its workspace as `.`, redacted), so
 * without it a damaged or missing state.json would make a pulled copy a writable session of this
 * machine.
 */
export interface SharedSidecar {
  readonly shared: SharedOrigin;
  /** The workspace folder the copy was pulled into (state.json's `workspaceDir`). */
  readonly workspaceDir: string;
}

/**
 * Where a session pulled from a git remote came from, by its folder: state.json's `shared`, else
 * its `shared.json` sidecar's. The writer lease asks it, so a pulled copy whose state.json cannot
 * be read is refused all the same.
 */
export function sharedOriginOf(sessionDir: string): SharedOrigin | undefined {
  return sharedOriginAt(sessionFolderLayout.stateFile(sessionDir)) ?? readSharedSidecar(sessionFolderLayout.sharedFile(sessionDir))?.shared;
}

/** The `shared.json` sidecar at `file`; undefined when there is none or it does not read as one. */
export function readSharedSidecar(file: string): SharedSidecar | undefined {
  const raw = jsonAt(file) as Partial<Record<keyof SharedSidecar, unknown>> | undefined;
  const shared = typeof raw === 'object' && raw !== null ? sharedOrigin(raw.shared) : undefined;
  if (!shared || typeof raw?.workspaceDir !== 'string' || !path.isAbsolute(raw.workspaceDir)) return undefined;
  return { shared, workspaceDir: raw.workspaceDir };
}

/** Writes a pulled copy's `shared.json` atomically (temp file, fsync, rename). */
export function writeSharedSidecar(file: string, sidecar: SharedSidecar): void {
  writeFileAtomic(file, sharedSidecarText(sidecar));
}

/** The text of a `shared.json` sidecar. */
export function sharedSidecarText(sidecar: SharedSidecar): string {
  return `${JSON.stringify({ shared: sharedOrigin(sidecar.shared), workspaceDir: sidecar.workspaceDir }, null, 2)}\n`;
}

/** The JSON value of a file; undefined when it cannot be read or parsed. */
function jsonAt(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** What a fork was made from: the session, the turn it was cut at (null: whole), and the subagent whose conversation it holds (absent: the session's own). */
export interface ForkSource {
  sessionId: string;
  turn: number | null;
  agentId?: string;
}

/** A session's agents: the main one and its subagents (`task` tool runs), each with its own log. */
export type AgentInfo = { id: string; parentId: string | null; title: string };

/**
 * A session as Braid shows it: what state.json keeps, and what the one fold of its log says
 * (src/core/format/logFold.ts). Only the {@link StoredState} part is ever written.
 */
export interface SessionState extends StoredState {
  updatedAt: number;
  status: SessionStatus;
  error: { message: string; source: string } | null;
  turnCount: number;
  model: ModelSnapshot | null;
  usage: UsageTotals;
  agents: AgentInfo[];
}

export const STATE_VERSION = 2;

export function zeroUsage(): UsageTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 };
}

/** A state.json that cannot be used; the store rebuilds the session from its logs. */
export class StateFileError extends Error {
  override readonly name = 'StateFileError';
}

const KINDS = new Set(['conversation', 'task', 'peek']);

const str = (x: unknown, fallback = ''): string => (typeof x === 'string' ? x : fallback);

/** Times are ms since 1970 and before the year 10000: a Date holds them and ISO 8601 writes them with four digits. */
const END_OF_TIMES = Date.UTC(10000, 0, 1);
export const isTime = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x < END_OF_TIMES;

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
  if (!isTime(r.createdAt)) problems.push(`createdAt is ${JSON.stringify(r.createdAt) ?? 'missing'}, not a time`);
  if (typeof r.title === 'string' && r.title !== titleOf(r.title)) problems.push('the title spans several lines or has spaces around it');
  if (Array.isArray(r.queue) && r.queue.some((q: { queuedAt?: unknown } | null) => q && !isTime(q.queuedAt)))
    problems.push('a queued prompt has no valid queuedAt');
  return problems;
}

/**
 * Brings a parsed state.json of any version Braid has written to the current one. Version 1 also
 * kept copies of what the log says (status, error, turn count, usage, model, updatedAt, agents);
 * they are dropped, since the log is read for them. Read forever: a session written by any
 * earlier Braid opens. A newer version is read as far as this one knows it.
 */
export function migrate(raw: Record<string, unknown>): Record<string, unknown> {
  let r = raw;
  if (r.v === undefined || r.v === 1) r = v1ToV2(r);
  return r;
}

function v1ToV2(r: Record<string, unknown>): Record<string, unknown> {
  const { status: _status, error: _error, turnCount: _turnCount, usage: _usage, model: _model, updatedAt, agents: _agents, ...kept } = r;
  // A queued prompt without its time took the state's updatedAt, the last time v1 wrote it.
  const queue = Array.isArray(kept.queue)
    ? kept.queue.map((q: { queuedAt?: unknown } | null) => (q && !isTime(q.queuedAt) && isTime(updatedAt) ? { ...q, queuedAt: updatedAt } : q))
    : kept.queue;
  return { ...kept, queue, v: 2 };
}

/**
 * Validates parsed state.json (after {@link migrate}). Required identity fields must be right;
 * everything else falls back to a default, so a state written by a newer version (more fields)
 * still reads. Impossible values get stand-ins ({@link implausibleFields} lists them): a time that
 * is no time reads as the session's creation (from its id), and a title is one line.
 */
export function normalizeState(raw: unknown): StoredState {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new StateFileError('state.json is not an object');
  const r = migrate(raw as Record<string, unknown>);
  if (typeof r.id !== 'string' || typeof r.workspaceKey !== 'string') throw new StateFileError('state.json lacks id or workspaceKey');
  if (!isSessionId(r.id) || !isWorkspaceKey(r.workspaceKey)) throw new StateFileError('state.json has a malformed id or workspaceKey (corrupt)');
  const forked = r.forkedFrom as { sessionId?: unknown; turn?: unknown; agentId?: unknown } | null | undefined;
  const paused = r.paused as { reason?: unknown } | null | undefined;
  const createdAt = isTime(r.createdAt) ? r.createdAt : creationOf(r.id);
  return {
    v: 2,
    id: r.id,
    workspaceKey: r.workspaceKey,
    workspaceDir: str(r.workspaceDir),
    ...(Array.isArray(r.workspaceFolders)
      ? { workspaceFolders: (r.workspaceFolders as unknown[]).filter((f): f is string => typeof f === 'string' && f.length > 0) }
      : {}),
    ...(worktreeLocation(r.runLocation) ? { runLocation: worktreeLocation(r.runLocation)! } : {}),
    ...(repoIdentity(r.identity) ? { identity: repoIdentity(r.identity)! } : {}),
    ...(Array.isArray(r.relinkedFrom) ? { relinkedFrom: (r.relinkedFrom as unknown[]).filter((f): f is string => typeof f === 'string' && f.length > 0) } : {}),
    createdAt,
    title: titleOf(r.title),
    titleSource: r.titleSource === 'user' ? 'user' : 'auto',
    kind: KINDS.has(r.kind as string) ? (r.kind as SessionKind) : 'conversation',
    visibility: r.visibility === 'hidden' ? 'hidden' : 'visible',
    archived: r.archived === true,
    forkedFrom: forkSource(forked),
    queue: Array.isArray(r.queue) ? (r.queue as QueuedPrompt[]).filter((q) => q && typeof q.text === 'string').map((q) => queuedPrompt(q, createdAt)) : [],
    paused: paused && typeof paused.reason === 'string' ? { reason: paused.reason } : null,
    ...(readWriteFailure(r.writeFailure) ? { writeFailure: readWriteFailure(r.writeFailure)! } : {}),
    ...(sharedOrigin(r.shared) ? { shared: sharedOrigin(r.shared)! } : {}),
    ...(syncPoints(r.synced) ? { synced: syncPoints(r.synced)! } : {}),
  };
}

/** A fork's source as read (from state.json or a `forked` record): null when it names no session. */
export function forkSource(forked: { sessionId?: unknown; turn?: unknown; agentId?: unknown } | null | undefined): ForkSource | null {
  if (!forked || typeof forked.sessionId !== 'string') return null;
  const source: ForkSource = { sessionId: forked.sessionId, turn: typeof forked.turn === 'number' ? forked.turn : null };
  return typeof forked.agentId === 'string' && forked.agentId ? { ...source, agentId: forked.agentId } : source;
}

/** A queued prompt as read: a time when it has none; attachments that are not attachments are dropped. */
function queuedPrompt(q: QueuedPrompt, createdAt: number): QueuedPrompt {
  const timed = isTime(q.queuedAt) ? q : { ...q, queuedAt: createdAt };
  if (q.attachments === undefined) return timed;
  const attachments = Array.isArray(q.attachments) ? (q.attachments as unknown[]).filter(isAttachment) : [];
  return { ...timed, attachments };
}

/** The part of a session's state that state.json keeps (a view's derived fields are left behind). */
export function storedPart(s: StoredState): StoredState {
  return {
    v: 2,
    id: s.id,
    workspaceKey: s.workspaceKey,
    workspaceDir: s.workspaceDir,
    ...(s.workspaceFolders ? { workspaceFolders: s.workspaceFolders } : {}),
    ...(s.runLocation ? { runLocation: s.runLocation } : {}),
    ...(s.identity ? { identity: s.identity } : {}),
    ...(s.relinkedFrom ? { relinkedFrom: s.relinkedFrom } : {}),
    createdAt: s.createdAt,
    title: s.title,
    titleSource: s.titleSource,
    kind: s.kind,
    visibility: s.visibility,
    archived: s.archived,
    forkedFrom: s.forkedFrom,
    queue: s.queue,
    paused: s.paused,
    ...(s.writeFailure ? { writeFailure: s.writeFailure } : {}),
    ...(s.shared ? { shared: s.shared } : {}),
    ...(s.synced ? { synced: s.synced } : {}),
  };
}

/**
 * Reads and validates state.json; throws StateFileError when missing or unusable. Braid writes it
 * as UTF-8 JSON, so invalid UTF-8 is damage even where JSON.parse would accept the replacement
 * characters. A file inside a session folder must name that folder's session and workspace.
 */
export function readState(file: string): StoredState {
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
    const relinked = relinkedState(file);
    if (relinked) return relinked;
    throw new StateFileError(`state.json names session ${state.id} in ${state.workspaceKey}, not the folder it is in (corrupt or copied by hand)`);
  }
  return state;
}

/**
 * The state a relink wrote beside state.json before it moved the folder (`state.json.relinked`):
 * a relink cut short after its rename left the old state in the new place, and this finishes it.
 * Undefined unless that file names this folder's session and workspace.
 */
function relinkedState(file: string): StoredState | undefined {
  const next = relinkedStateFile(file);
  let state: StoredState;
  try {
    state = normalizeState(JSON.parse(fs.readFileSync(next, 'utf8')));
  } catch {
    return undefined;
  }
  const dir = path.dirname(file);
  if (state.id !== path.basename(dir) || state.workspaceKey !== path.basename(path.dirname(dir))) return undefined;
  fs.renameSync(next, file);
  return state;
}

/** Where a relink writes a session's next state before moving its folder. */
export const relinkedStateFile = (stateFile: string): string => `${stateFile}.relinked`;

/** The workspace folders a session's tools have acted in (workspaceDir alone for sessions from before Braid kept them). */
export function sessionFolders(state: Pick<SessionState, 'workspaceDir' | 'workspaceFolders'>): string[] {
  return state.workspaceFolders?.length ? state.workspaceFolders : [state.workspaceDir];
}

/** Writes state.json atomically (temp file, fsync, rename, fsync of the folder); `beforeReplace` as in writeFileAtomic. */
export function writeState(file: string, state: StoredState, beforeReplace?: () => void): void {
  writeFileAtomic(file, stateText(state), beforeReplace);
}

/** state.json's text for a state. */
export function stateText(state: StoredState): string {
  return `${JSON.stringify(storedPart(state), null, 2)}\n`;
}
