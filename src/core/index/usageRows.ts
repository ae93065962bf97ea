import { addFigures, sessionUsageOf, zeroFigures, type SessionUsage, type UsageBucket, type UsageFigures } from '../format/usage';
import { sessionTitle } from '../format/titles';
import { queryAll, runPrepared, type Database } from './sqlite';

// How usage is counted once per real model call. Each session's row set holds the calls its log
// records (each once, by the call's stable id), grouped by origin: the session that made them.
// A fork holds copies of its source's calls (origin: the source), so one call may be held by
// several sessions. Every holder of an origin's calls holds a prefix of that origin's log (a
// fork copies a byte prefix), so their sets are nested and the holder with the most calls holds
// them all: totals take each origin's calls from that holder alone, the origin itself when it is
// still there, else (its folder deleted) the fork that kept the most of them.
//
// Sessions pulled from a git remote (sessions.shared) hold another person's calls: by default
// they are left out, and so are the calls of every origin a pulled session holds that is not a
// session of this machine (the pulled session's own, and those of the sessions it was forked
// from), wherever they are held: a local fork of a pulled session counts its own new calls only.

// The figures and a session's usage are the format's (a session in memory counts them as well); named here too for the index's readers.
export { zeroFigures, type SessionUsage, type UsageFigures };

/** Usage grouped under one key (a session id, `provider/model`, or a UTC day). */
export interface UsageLine extends UsageFigures {
  key: string;
}

/** A session in a usage report: its title, or null when the session is gone and only forks keep its calls. */
export interface SessionUsageLine extends UsageLine {
  title: string | null;
}

/** Usage of a workspace (or of every workspace), each call counted once. */
export interface UsageReport {
  total: UsageFigures;
  /** By the session that made the calls. */
  bySession: SessionUsageLine[];
  /** By `provider/model`. */
  byModel: UsageLine[];
  /** By UTC day. */
  byDay: UsageLine[];
  /** Sessions pulled from git remotes in the scope whose calls were left out (0 when they are counted). */
  sharedLeftOut: number;
}

/** What a usage report counts beyond this machine's sessions. */
export interface UsageOptions {
  /** Count the calls of sessions pulled from git remotes too (another person's spend). */
  readonly includeShared?: boolean;
}

interface RawBucket {
  origin: string;
  day: string;
  provider: string;
  model: string;
  calls: number;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning: number;
  cost: number;
}

function toBucket(r: RawBucket): UsageBucket {
  return {
    origin: r.origin,
    day: r.day,
    provider: r.provider,
    model: r.model,
    calls: r.calls,
    input: r.input,
    output: r.output,
    cacheRead: r.cache_read,
    cacheWrite: r.cache_write,
    reasoning: r.reasoning,
    cost: r.cost,
  };
}

/** The usage rows with each origin spelled out: a session's own calls are stored with origin '' (most rows; it keeps the index small). */
const USAGE = `SELECT session_id, CASE origin WHEN '' THEN session_id ELSE origin END AS origin, day, provider, model, calls, input, output,
  cache_read, cache_write, reasoning, cost FROM usage`;

/**
 * A usage row (of USAGE) of this machine's calls: not held by a pulled session, and not of an
 * origin a pulled session holds unless that origin is a session of this machine.
 */
const OWN_CALLS = `session_id NOT IN (SELECT id FROM sessions WHERE shared IS NOT NULL)
  AND origin NOT IN (SELECT CASE p.origin WHEN '' THEN p.session_id ELSE p.origin END FROM usage p
    JOIN sessions s ON s.id = p.session_id AND s.shared IS NOT NULL
    WHERE CASE p.origin WHEN '' THEN p.session_id ELSE p.origin END NOT IN (SELECT id FROM sessions WHERE shared IS NULL))`;

/** Replaces a session's usage rows. */
export function writeUsage(db: Database, sessionId: string, buckets: readonly UsageBucket[]): void {
  runPrepared(db, 'DELETE FROM usage WHERE session_id = ?', [sessionId]);
  for (const u of buckets) {
    runPrepared(db, 'INSERT INTO usage VALUES (?,?,?,?,?,?,?,?,?,?,?,?)', [
      sessionId,
      u.origin === sessionId ? '' : u.origin,
      u.day,
      u.provider,
      u.model,
      u.calls,
      u.input,
      u.output,
      u.cacheRead,
      u.cacheWrite,
      u.reasoning,
      u.cost,
    ]);
  }
}

/**
 * The buckets that count: for each origin, those of the holder with the most of its calls (ties
 * go to the origin itself; tied holders hold the same calls). A fork lives in its source's
 * workspace, so a workspace's holders are all found in it.
 */
function countedBuckets(db: Database, workspaceKey: string | undefined, includeShared: boolean): UsageBucket[] {
  const rows = includeShared ? USAGE : `SELECT * FROM (${USAGE}) WHERE ${OWN_CALLS}`;
  const scope = workspaceKey ? `SELECT u.* FROM (${rows}) u JOIN sessions s ON s.id = u.session_id WHERE s.workspace_key = ?` : rows;
  // SQLite takes the bare column session_id from the row that has the max().
  return queryAll<RawBucket>(
    db,
    `WITH scoped AS (${scope}),
    held AS (SELECT origin, session_id, sum(calls) * 2 + (session_id = origin) AS rank FROM scoped GROUP BY origin, session_id),
    chosen AS (SELECT origin, session_id, max(rank) FROM held GROUP BY origin)
    SELECT scoped.* FROM scoped JOIN chosen ON chosen.origin = scoped.origin AND chosen.session_id = scoped.session_id`,
    workspaceKey ? [workspaceKey] : [],
  ).map(toBucket);
}

function grouped(buckets: readonly UsageBucket[], keyOf: (b: UsageBucket) => string): UsageLine[] {
  const lines = new Map<string, UsageLine>();
  for (const b of buckets) {
    const key = keyOf(b);
    let line = lines.get(key);
    if (!line) lines.set(key, (line = { key, ...zeroFigures() }));
    addFigures(line, b);
  }
  return [...lines.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Usage of one workspace (all when absent): the total and the lines by session, model and day. */
export function usageReport(db: Database, workspaceKey?: string, options: UsageOptions = {}): UsageReport {
  const includeShared = options.includeShared === true;
  const buckets = countedBuckets(db, workspaceKey, includeShared);
  const total = zeroFigures();
  for (const b of buckets) addFigures(total, b);
  const titles = new Map(
    queryAll<{ id: string; title: string; title_source: string; first_prompt: string }>(
      db,
      `SELECT id, title, title_source, first_prompt FROM sessions WHERE id IN (SELECT DISTINCT origin FROM (${USAGE}))`,
    ).map((r) => [r.id, sessionTitle({ title: r.title, titleSource: r.title_source, firstPrompt: r.first_prompt })]),
  );
  return {
    total,
    bySession: grouped(buckets, (b) => b.origin).map((line) => ({ ...line, title: titles.get(line.key) ?? null })),
    byModel: grouped(buckets, (b) => `${b.provider}/${b.model}`),
    byDay: grouped(buckets, (b) => b.day),
    sharedLeftOut: includeShared ? 0 : pulledSessions(db, workspaceKey),
  };
}

/** How many sessions pulled from git remotes the scope holds. */
function pulledSessions(db: Database, workspaceKey?: string): number {
  const where = workspaceKey ? ' AND workspace_key = ?' : '';
  return queryAll<{ n: number }>(db, `SELECT count(*) AS n FROM sessions WHERE shared IS NOT NULL${where}`, workspaceKey ? [workspaceKey] : [])[0]?.n ?? 0;
}

export function sessionUsage(db: Database, sessionId: string): SessionUsage {
  return sessionUsageOf(queryAll<RawBucket>(db, `${USAGE} WHERE session_id = ?`, [sessionId]).map(toBucket), sessionId);
}

/**
 * Several workspaces' reports as one. A call is held only by sessions of the workspace it was
 * made in (a fork lives in its source's workspace), so adding the reports counts each call once.
 */
export function mergeUsageReports(reports: readonly UsageReport[]): UsageReport {
  const total = zeroFigures();
  for (const r of reports) addFigures(total, r.total);
  const merged = (lines: UsageLine[]) => grouped(lines.map(asBucket), (b) => b.origin);
  return {
    total,
    bySession: reports.flatMap((r) => r.bySession).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    byModel: merged(reports.flatMap((r) => r.byModel)),
    byDay: merged(reports.flatMap((r) => r.byDay)),
    sharedLeftOut: reports.reduce((n, r) => n + r.sharedLeftOut, 0),
  };
}

/** A report's line as a bucket keyed by the line's key, for grouping again. */
function asBucket(line: UsageLine): UsageBucket {
  const { key, ...figures } = line;
  return { ...figures, origin: key, day: '', provider: '', model: '' };
}
