import fs from 'node:fs';
import { fileIdentity } from '../fs/probe';
import type { SessionRow } from '../index/indexRows';
import { headType } from '../wire/lineHead';
import { walkLines } from '../wire/lineWalk';
import { isKnown, parseRecordLine, type CacheBreakRecord, type UsageRecord } from '../wire/records';
import type { SessionStore } from './sessionStore';

/** The calls beside a session's turns, by purpose: what the usage view labels apart from the conversation. */
export const SIDE_CALL_PURPOSES = ['suggestion', 'side-question', 'compaction', 'memory'] as const;
export type SideCallPurpose = (typeof SIDE_CALL_PURPOSES)[number];

/** Calls, tokens and cost of one purpose, or of one agent. */
export interface CallFigures {
  calls: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  cost: number;
}

/** The agent a usage record's call was made by: the subagent its purpose names, else `main` (side calls included). */
export const MAIN_AGENT = 'main';

/** What a session's own log says beyond the index's usage figures: its cache breaks, its side calls and its calls by agent. */
export interface SessionUsageLog {
  readonly row: SessionRow;
  /** Oldest first. */
  readonly breaks: CacheBreakRecord[];
  readonly sideCalls: Partial<Record<SideCallPurpose, CallFigures>>;
  /** By agent id (`main`, or a subagent's id), each call counted once (undo appends copies). */
  readonly agents: Record<string, CallFigures>;
}

/** The sessions read, and whether the scope had more than the limit. */
export interface UsageLogs {
  readonly sessions: SessionUsageLog[];
  readonly more: boolean;
  /** Sessions pulled from git remotes in the scope that were not read (another person's calls); 0 when they were. */
  readonly sharedLeftOut?: number;
}

/** Sessions read by default: the most recently updated ones (their logs are read whole). */
export const USAGE_LOG_SESSIONS = 50;

/** What has been read of one log: its facts so far, where its last whole line ended, and in which file (fileIdentity). */
interface ReadSoFar {
  readonly facts: Omit<SessionUsageLog, 'row'>;
  /** The calls counted in `facts.agents`, by their message ids. */
  readonly counted: ReadonlySet<string>;
  readonly end: number;
  readonly identity: string;
}

/**
 * Reads the cache breaks and side calls of the most recently updated sessions of a workspace (or
 * of every one). A session's own records only: what a fork copied from its source comes before
 * the fork's last `forked` record and is counted under the source. Lines are picked by their head
 * (docs/reference.md, Wire records) and only those parsed; a log that cannot be read is skipped.
 * One reader kept (the Usage view's) reads each log once, then only what was appended since:
 * a redraw while a turn runs costs the new lines, not the logs.
 */
export class UsageLogReader {
  private readonly read = new Map<string, ReadSoFar>();
  /** Bytes read by the last `logs` call (what a redraw cost). */
  lastBytesRead = 0;

  constructor(private readonly store: SessionStore) {}

  /** `includeShared`: sessions pulled from git remotes are read too (by default they are left out: another person's calls). */
  logs(workspaceKey: string | undefined, limit = USAGE_LOG_SESSIONS, includeShared = false): UsageLogs {
    const scope = { ...(workspaceKey ? { workspaceKey } : {}), ...(includeShared ? {} : { shared: false }) };
    const rows = this.store.index.list({ ...scope, limit: limit + 1 });
    const sessions: SessionUsageLog[] = [];
    this.lastBytesRead = 0;
    for (const row of rows.slice(0, limit)) {
      let file: string;
      try {
        file = this.store.layout.agentLog(this.store.locate(row.id));
      } catch {
        continue; // deleted since the index was read
      }
      const facts = this.readOn(row.id, file);
      if (facts) sessions.push({ row, ...facts });
    }
    const sharedLeftOut = includeShared ? 0 : this.store.index.count({ ...scope, shared: true });
    return { sessions, more: rows.length > limit, sharedLeftOut };
  }

  /** The log's facts, read from where the last read of it ended (from its start when it is new, or was replaced whole, as `braid doctor --fix` replaces one). */
  private readOn(id: string, file: string): Omit<SessionUsageLog, 'row'> | undefined {
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch {
      this.read.delete(id);
      return undefined;
    }
    try {
      const stats = fs.fstatSync(fd);
      const [size, identity] = [stats.size, fileIdentity(stats)];
      const known = this.read.get(id);
      const from =
        known && known.identity === identity && known.end <= size
          ? known
          : { facts: { breaks: [], sideCalls: {}, agents: {} }, counted: new Set<string>(), end: 0, identity };
      if (from.end === size && from === known) return from.facts;
      const next = readLines(fd, from, size);
      this.lastBytesRead += next.end - from.end;
      this.read.set(id, next);
      return next.facts;
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** Reads once, with nothing kept: what the CLI does. */
export function readUsageLogs(store: SessionStore, workspaceKey: string | undefined, limit = USAGE_LOG_SESSIONS, includeShared = false): UsageLogs {
  return new UsageLogReader(store).logs(workspaceKey, limit, includeShared);
}

/** The facts of `so.facts` with the whole lines of bytes [so.end, size) added. */
function readLines(fd: number, so: ReadSoFar, size: number): ReadSoFar {
  let breaks = [...so.facts.breaks];
  let sideCalls: SessionUsageLog['sideCalls'] = structuredClone(so.facts.sideCalls);
  let agents: SessionUsageLog['agents'] = structuredClone(so.facts.agents);
  let counted = new Set(so.counted);
  const walk = walkLines(fd, so.end, size, {
    line: (buf, start, end) => {
      const type = headType(buf, start, end);
      if (type !== 'cache_break' && type !== 'usage' && type !== 'forked') return;
      const parsed = parseRecordLine(buf.toString('utf8', start, end));
      if (!('record' in parsed) || !isKnown(parsed.record)) return;
      const r = parsed.record;
      if (r.t === 'forked') {
        breaks = [];
        sideCalls = {};
        agents = {};
        counted = new Set();
      } else if (r.t === 'cache_break') breaks.push(r);
      else if (r.t === 'usage') {
        addSideCall(sideCalls, r);
        if (!counted.has(r.messageId)) addCall((agents[agentOf(r)] ??= zeroCalls()), r);
        counted.add(r.messageId);
      }
    },
    overlong: () => undefined,
  });
  // A line not ended yet (a writer mid-append) is read next time, whole.
  const end = walk.tail ? walk.tail.offset + walk.tail.start : size;
  return { facts: { breaks, sideCalls, agents }, counted, end, identity: so.identity };
}

/** No calls yet. */
export function zeroCalls(): CallFigures {
  return { calls: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0, cost: 0 };
}

function agentOf(u: UsageRecord): string {
  return u.purpose?.startsWith('subagent:') ? u.purpose.slice('subagent:'.length) : MAIN_AGENT;
}

function addSideCall(sideCalls: SessionUsageLog['sideCalls'], u: UsageRecord): void {
  const purpose = SIDE_CALL_PURPOSES.find((p) => p === u.purpose);
  if (purpose) addCall((sideCalls[purpose] ??= zeroCalls()), u);
}

function addCall(f: CallFigures, u: UsageRecord): void {
  f.calls++;
  f.input += u.input ?? 0;
  f.cacheRead += u.cacheRead ?? 0;
  f.cacheWrite += u.cacheWrite ?? 0;
  f.output += u.output ?? 0;
  f.cost += u.cost ?? 0;
}
