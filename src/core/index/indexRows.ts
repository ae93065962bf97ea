import type { SessionState, SharedOrigin } from '../format/sessionState';
import type { LogFold } from '../format/logFold';
import { summarize, type SessionSummary } from '../format/summary';
import { foldOfLog } from '../format/foldFile';
import { lastInsertRowid, queryAll, queryJsonRows, runPrepared, type Database } from './sqlite';
import { dropSessionDocs, indexTurns, searchHits, type PreparedDocument, type SearchHit, type SearchOptions } from './turnSearch';
import { writeUsage } from './usageRows';

/** A session as the index lists it. */
export interface SessionRow {
  id: string;
  workspaceKey: string;
  workspaceDir: string;
  title: string;
  titleSource: string;
  status: string;
  error: string | null;
  kind: string;
  visibility: string;
  archived: boolean;
  forkedFrom: { sessionId: string; turn: number | null } | null;
  model: { provider: string; id: string } | null;
  createdAt: number;
  updatedAt: number;
  turnCount: number;
  messageCount: number;
  firstPrompt: string;
  lastPreview: string;
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number; reasoning: number; cost: number };
  logBytes: number;
  stateMtime: number;
  /** How many subagents (`task` tool runs) the session has; their details are read on demand. */
  subagents: number;
  /** The git branch its last turn that recorded one ran on; null when none did. */
  branch: string | null;
  /** Where a session pulled from a git remote came from (state.json's `shared`); null for a session of this machine. */
  shared: SharedOrigin | null;
}

interface RawRow {
  seq: number;
  id: string;
  workspace_key: string;
  workspace_dir: string;
  title: string;
  title_source: string;
  status: string;
  error: string | null;
  kind: string;
  visibility: string;
  archived: number;
  forked_from: string | null;
  forked_turn: number | null;
  model_provider: string | null;
  model_id: string | null;
  created_at: number;
  updated_at: number;
  turn_count: number;
  message_count: number;
  first_prompt: string;
  last_preview: string;
  input_tokens: number;
  output_tokens: number;
  cache_read: number;
  cache_write: number;
  reasoning_tokens: number;
  cost: number;
  log_bytes: number;
  state_mtime: number;
  subagents: number;
  branch: string | null;
  shared: string | null;
}

const COLUMNS =
  'seq, id, workspace_key, workspace_dir, title, title_source, status, error, kind, visibility, archived, forked_from, forked_turn, model_provider, model_id, created_at, updated_at, turn_count, message_count, first_prompt, last_preview, input_tokens, output_tokens, cache_read, cache_write, reasoning_tokens, cost, log_bytes, state_mtime, subagents, branch, shared';

/** The listed columns as one JSON object per row (see queryJsonRows), read from a table alias. */
function rowJson(alias = ''): string {
  return `json_object(${COLUMNS.split(', ')
    .map((c) => `'${c}', ${alias}${c}`)
    .join(', ')})`;
}

function toRow(r: RawRow): SessionRow {
  return {
    id: r.id,
    workspaceKey: r.workspace_key,
    workspaceDir: r.workspace_dir,
    title: r.title,
    titleSource: r.title_source,
    status: r.status,
    error: r.error,
    kind: r.kind,
    visibility: r.visibility,
    archived: r.archived === 1,
    forkedFrom: r.forked_from ? { sessionId: r.forked_from, turn: r.forked_turn } : null,
    model: r.model_id ? { provider: r.model_provider ?? '', id: r.model_id } : null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    turnCount: r.turn_count,
    messageCount: r.message_count,
    firstPrompt: r.first_prompt,
    lastPreview: r.last_preview,
    usage: { input: r.input_tokens, output: r.output_tokens, cacheRead: r.cache_read, cacheWrite: r.cache_write, reasoning: r.reasoning_tokens, cost: r.cost },
    logBytes: r.log_bytes,
    stateMtime: r.state_mtime,
    subagents: r.subagents,
    branch: r.branch,
    shared: sharedOf(r.shared),
  };
}

/** A row's `shared` cell read back; null when empty or damaged (the doctor finds such a row disagreeing with its folder). */
function sharedOf(cell: string | null): SharedOrigin | null {
  if (!cell) return null;
  try {
    return JSON.parse(cell) as SharedOrigin;
  } catch {
    return null;
  }
}

/** The row the index keeps for a summary (what a list shows of the session). */
export function rowOfSummary(s: SessionSummary): SessionRow {
  const st = s.state;
  return {
    id: st.id,
    workspaceKey: st.workspaceKey,
    workspaceDir: st.workspaceDir,
    title: st.title,
    titleSource: st.titleSource,
    status: st.status,
    error: st.error?.message ?? null,
    kind: st.kind,
    visibility: st.visibility,
    archived: st.archived,
    forkedFrom: st.forkedFrom ? { sessionId: st.forkedFrom.sessionId, turn: st.forkedFrom.turn ?? null } : null,
    model: st.model ? { provider: st.model.provider, id: st.model.id } : null,
    createdAt: st.createdAt,
    updatedAt: st.updatedAt,
    turnCount: st.turnCount,
    messageCount: s.messageCount,
    firstPrompt: s.firstPrompt,
    lastPreview: s.lastPreview,
    usage: {
      input: st.usage.input,
      output: st.usage.output,
      cacheRead: st.usage.cacheRead,
      cacheWrite: st.usage.cacheWrite,
      reasoning: st.usage.reasoning,
      cost: st.usage.cost,
    },
    logBytes: s.logBytes,
    stateMtime: s.stateMtime,
    subagents: st.agents.filter((a) => a.parentId !== null).length,
    branch: s.branch,
    shared: st.shared ?? null,
  };
}

/**
 * Inserts or replaces a session's row and its usage buckets, and brings its search documents up to
 * date: the turns not indexed yet are read from `log`, the session's main log.
 */
export function upsertSummary(db: Database, s: SessionSummary, log: string, documents?: readonly PreparedDocument[]): void {
  const st = s.state;
  const r = rowOfSummary(s);
  const existing = queryAll<{ seq: number; title: string }>(db, 'SELECT seq, title FROM sessions WHERE id = ?', [r.id])[0];
  const values = [
    r.id,
    r.workspaceKey,
    r.workspaceDir,
    r.title,
    r.titleSource,
    r.status,
    r.error,
    r.kind,
    r.visibility,
    r.archived ? 1 : 0,
    r.forkedFrom?.sessionId ?? null,
    r.forkedFrom?.turn ?? null,
    r.model?.provider ?? null,
    r.model?.id ?? null,
    r.createdAt,
    r.updatedAt,
    r.turnCount,
    r.messageCount,
    r.firstPrompt,
    r.lastPreview,
    r.usage.input,
    r.usage.output,
    r.usage.cacheRead,
    r.usage.cacheWrite,
    r.usage.reasoning,
    r.usage.cost,
    r.logBytes,
    r.stateMtime,
    r.subagents,
    r.branch,
    r.shared ? JSON.stringify(r.shared) : null,
  ];
  const data = [JSON.stringify(st)];
  let seq: number;
  if (existing) {
    seq = existing.seq;
    runPrepared(
      db,
      `UPDATE sessions SET id=?, workspace_key=?, workspace_dir=?, title=?, title_source=?, status=?, error=?, kind=?, visibility=?,
      archived=?, forked_from=?, forked_turn=?, model_provider=?, model_id=?, created_at=?, updated_at=?, turn_count=?, message_count=?,
      first_prompt=?, last_preview=?, input_tokens=?, output_tokens=?, cache_read=?, cache_write=?, reasoning_tokens=?, cost=?,
      log_bytes=?, state_mtime=?, subagents=?, branch=?, shared=? WHERE seq=?`,
      [...values, seq],
    );
  } else {
    runPrepared(
      db,
      `INSERT INTO sessions (id, workspace_key, workspace_dir, title, title_source, status, error, kind, visibility, archived,
      forked_from, forked_turn, model_provider, model_id, created_at, updated_at, turn_count, message_count, first_prompt, last_preview,
      input_tokens, output_tokens, cache_read, cache_write, reasoning_tokens, cost, log_bytes, state_mtime, subagents, branch, shared)
      VALUES (${values.map(() => '?').join(',')})`,
      values,
    );
    seq = lastInsertRowid(db);
  }
  runPrepared(db, 'INSERT OR REPLACE INTO session_data(seq, state_json) VALUES (?, ?)', [seq, ...data]);
  writeBranches(db, seq, s.branches);
  indexTurns(db, seq, s, log, existing?.title, documents);
  writeUsage(db, st.id, s.usage);
}

/** Replaces the branches a session's turns ran on, unless they are the ones kept (most turns change none). */
function writeBranches(db: Database, seq: number, branches: readonly string[]): void {
  const kept = queryAll<{ branch: string }>(db, 'SELECT branch FROM session_branches WHERE session_seq = ?', [seq]).map((r) => r.branch);
  if (kept.length === branches.length && kept.every((b) => branches.includes(b))) return;
  runPrepared(db, 'DELETE FROM session_branches WHERE session_seq = ?', [seq]);
  for (const branch of new Set(branches)) runPrepared(db, 'INSERT INTO session_branches (session_seq, branch) VALUES (?, ?)', [seq, branch]);
}

/** Removes a session's row, branches, search documents and usage. */
export function deleteSessionRow(db: Database, id: string): void {
  const existing = queryAll<{ seq: number }>(db, 'SELECT seq FROM sessions WHERE id = ?', [id])[0];
  if (!existing) return;
  dropSessionDocs(db, existing.seq);
  db.run('DELETE FROM session_branches WHERE session_seq = ?', [existing.seq]);
  db.run('DELETE FROM session_data WHERE seq = ?', [existing.seq]);
  db.run('DELETE FROM sessions WHERE seq = ?', [existing.seq]);
  db.run('DELETE FROM usage WHERE session_id = ?', [id]);
}

/** Which sessions a list shows. */
export interface ListFilter {
  /** Only this workspace; all workspaces when absent. */
  readonly workspaceKey?: string;
  /** Archived sessions instead of live ones. */
  readonly archived?: boolean;
  /** Include hidden sessions (peeks kept as forks start hidden). */
  readonly includeHidden?: boolean;
  /** Only sessions a turn of which ran on this git branch (its exact name). */
  readonly branch?: string;
  /** Only sessions pulled from a git remote (true), or only this machine's (false); both when absent. */
  readonly shared?: boolean;
  readonly limit?: number;
  readonly offset?: number;
}

export function listWhere(filter: ListFilter, alias = ''): { sql: string; params: (string | number)[] } {
  const clauses = [`${alias}archived = ?`];
  const params: (string | number)[] = [filter.archived ? 1 : 0];
  if (filter.workspaceKey) {
    clauses.unshift(`${alias}workspace_key = ?`);
    params.unshift(filter.workspaceKey);
  }
  if (!filter.includeHidden) clauses.push(`${alias}visibility = 'visible'`);
  if (filter.shared !== undefined) clauses.push(`${alias}shared IS ${filter.shared ? 'NOT ' : ''}NULL`);
  if (filter.branch !== undefined) {
    clauses.push(`${alias}seq IN (SELECT session_seq FROM session_branches WHERE branch = ?)`);
    params.push(filter.branch);
  }
  return { sql: clauses.join(' AND '), params };
}

/** Most recently updated first; a workspace's list is an indexed range scan, never a global top-N filtered afterwards. */
export function listRows(db: Database, filter: ListFilter): SessionRow[] {
  const w = listWhere(filter);
  return queryJsonRows<RawRow>(db, `SELECT ${rowJson()} FROM sessions WHERE ${w.sql} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`, [
    ...w.params,
    filter.limit ?? -1,
    filter.offset ?? 0,
  ]).map(toRow);
}

/** Where a row sorts in a list across workspaces: most recently updated first, ties by id, newest first. */
export interface RowKey {
  readonly id: string;
  readonly updatedAt: number;
}

/**
 * The keys of the rows `listRows` would return, without the rows: a list across workspaces takes
 * each workspace's keys, picks the page from all of them, and reads only the page's rows.
 */
export function listKeys(db: Database, filter: ListFilter): RowKey[] {
  const w = listWhere(filter);
  return queryAll<{ id: string; updated_at: number }>(
    db,
    `SELECT id, updated_at FROM sessions WHERE ${w.sql} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`,
    [...w.params, filter.limit ?? -1, filter.offset ?? 0],
  ).map((r) => ({ id: r.id, updatedAt: r.updated_at }));
}

/** What a search looks in: the sessions a list shows, narrowed by the search's options. */
export type SearchFilter = ListFilter & SearchOptions;

/**
 * Sessions with a turn (or title) saying every word of `text` (or, without words, a turn changing
 * `filter.file`), within `filter`, most recently updated first, each with its matching turns.
 */
export function searchSessions(db: Database, text: string, filter: SearchFilter): SearchHit[] {
  return searchHits(db, text, filter, listWhere(filter, 's.'));
}

/** The rows of these sessions (those the index has), in no particular order. */
export function rowsOf(db: Database, ids: readonly string[]): SessionRow[] {
  if (ids.length === 0) return [];
  return queryJsonRows<RawRow>(db, `SELECT ${rowJson()} FROM sessions WHERE id IN (${ids.map(() => '?').join(',')})`, [...ids]).map(toRow);
}

export function countRows(db: Database, filter: ListFilter): number {
  const w = listWhere(filter);
  return queryAll<{ n: number }>(db, `SELECT count(*) AS n FROM sessions WHERE ${w.sql}`, w.params)[0]?.n ?? 0;
}

export function getRow(db: Database, id: string): SessionRow | undefined {
  const raw = queryJsonRows<RawRow>(db, `SELECT ${rowJson()} FROM sessions WHERE id = ?`, [id])[0];
  return raw ? toRow(raw) : undefined;
}

/** The titles of the sessions forked from `sourceId` (forks live in their source's workspace: an indexed scan). */
export function forkTitles(db: Database, workspaceKey: string, sourceId: string): string[] {
  return queryAll<{ title: string }>(db, 'SELECT title FROM sessions WHERE workspace_key = ? AND forked_from = ?', [workspaceKey, sourceId]).map(
    (r) => r.title,
  );
}

/** A row's state, or undefined when the cell is damaged (the caller reads the folder instead). */
function parseStateJson(text: string): SessionState | undefined {
  try {
    const state = JSON.parse(text) as SessionState;
    return typeof state === 'object' &&
      state !== null &&
      typeof state.id === 'string' &&
      typeof state.usage === 'object' &&
      state.usage !== null &&
      Array.isArray(state.agents)
      ? state
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The first field in which an index row disagrees with what the session's folder says, or
 * undefined when they agree. The doctor uses it to find rows a damaged index.sqlite still holds.
 */
export function rowDisagreement(row: SessionRow, summary: SessionSummary): string | undefined {
  const expected = rowOfSummary(summary);
  for (const field of Object.keys(expected) as Array<keyof SessionRow>) {
    if (JSON.stringify(row[field]) !== JSON.stringify(expected[field])) return field;
  }
  return undefined;
}

/**
 * Mtime and size per session of a workspace, for reconciling against disk. The rows cross from
 * sql.js as one text (a call per value made this a tenth of a fresh command's time with 1,000
 * sessions); `%!.17g` writes each mtime with digits enough to read back the same double.
 */
export function fingerprints(db: Database, workspaceKey?: string): Map<string, { stateMtime: number; logBytes: number }> {
  const text = queryAll<{ rows: string | null }>(
    db,
    `SELECT group_concat(printf('%!.17g %d ', state_mtime, log_bytes) || id, char(10)) AS rows FROM sessions${workspaceKey ? ' WHERE workspace_key = ?' : ''}`,
    workspaceKey ? [workspaceKey] : [],
  )[0]?.rows;
  const found = new Map<string, { stateMtime: number; logBytes: number }>();
  for (const row of text ? text.split('\n') : []) {
    const [mtime, bytes] = row.split(' ', 2);
    found.set(row.slice(mtime!.length + bytes!.length + 2), { stateMtime: Number(mtime), logBytes: Number(bytes) });
  }
  return found;
}

/** The rows of the sessions {@link searchSessions} finds, in its order. */
export function searchRows(db: Database, text: string, filter: SearchFilter): SessionRow[] {
  const hits = searchSessions(db, text, filter);
  const byId = new Map(
    rowsOf(
      db,
      hits.map((h) => h.id),
    ).map((r) => [r.id, r]),
  );
  return hits.flatMap((h) => byId.get(h.id) ?? []);
}

/** A workspace with sessions in the index. */
export interface WorkspaceRow {
  workspaceKey: string;
  workspaceDir: string;
  sessions: number;
  updatedAt: number;
}

export function listWorkspaces(db: Database): WorkspaceRow[] {
  return queryAll<{ workspace_key: string; workspace_dir: string; n: number; updated: number }>(
    db,
    'SELECT workspace_key, max(workspace_dir) AS workspace_dir, count(*) AS n, max(updated_at) AS updated FROM sessions GROUP BY workspace_key ORDER BY updated DESC',
  ).map((r) => ({ workspaceKey: r.workspace_key, workspaceDir: r.workspace_dir, sessions: r.n, updatedAt: r.updated }));
}

/**
 * Reads back everything the index holds about a session, as the summary it was built from: the
 * same {@link summarize} over the kept state and the log's fold (kept beside the log, in the
 * folder `dirOf` names). Undefined when a cell is damaged or the log is not the one the row was
 * made from (the caller reads the folder instead).
 */
export function readSummary(db: Database, id: string, dirOf: (workspaceKey: string, id: string) => string): SessionSummary | undefined {
  const raw = queryAll<RawRow & { state_json: string }>(db, 'SELECT s.*, d.state_json FROM sessions s JOIN session_data d ON d.seq = s.seq WHERE s.id = ?', [
    id,
  ])[0];
  const state = raw ? parseStateJson(raw.state_json) : undefined;
  const fold = raw && state ? foldOfLog(dirOf(raw.workspace_key, id), raw.log_bytes) : undefined;
  if (!raw || !state || !fold) return undefined;
  return summarize(state, fold, state.agents, raw.log_bytes, raw.state_mtime);
}

/** A session's state as the index keeps it, without its log's fold. */
export function readState(db: Database, id: string): SessionState | undefined {
  const raw = queryAll<{ state_json: string }>(db, 'SELECT d.state_json FROM sessions s JOIN session_data d ON d.seq = s.seq WHERE s.id = ?', [id])[0];
  return raw ? parseStateJson(raw.state_json) : undefined;
}

/**
 * A summary as the index gives it back once written (`readSummary`): its state and fold as they
 * are kept, and what they say. A change not written yet is answered in this form too.
 */
export function storedForm(s: SessionSummary): SessionSummary {
  const state = JSON.parse(JSON.stringify(s.state)) as SessionState;
  const fold = JSON.parse(JSON.stringify(s.fold)) as LogFold;
  return summarize(state, fold, state.agents, s.logBytes, s.stateMtime);
}
