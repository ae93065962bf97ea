import fs from 'node:fs';
import type { SessionRow } from '../index/indexRows';
import { headType } from '../wire/lineHead';
import { walkLines } from '../wire/lineWalk';
import { isKnown, parseRecordLine, type CacheBreakRecord, type UsageRecord } from '../wire/records';
import type { SessionStore } from './sessionStore';

/** The calls beside a session's turns, by purpose: what the usage view labels apart from the conversation. */
export const SIDE_CALL_PURPOSES = ['suggestion', 'side-question', 'compaction'] as const;
export type SideCallPurpose = (typeof SIDE_CALL_PURPOSES)[number];

/** Calls, tokens and cost of one purpose. */
export interface SideCallFigures {
  calls: number;
  input: number;
  cacheRead: number;
  output: number;
  cost: number;
}

/** What a session's own log says beyond the index's usage figures: its cache breaks and its side calls. */
export interface SessionUsageLog {
  readonly row: SessionRow;
  /** Oldest first. */
  readonly breaks: CacheBreakRecord[];
  readonly sideCalls: Partial<Record<SideCallPurpose, SideCallFigures>>;
}

/** The sessions read, and whether the scope had more than the limit. */
export interface UsageLogs {
  readonly sessions: SessionUsageLog[];
  readonly more: boolean;
}

/** Sessions read by default: the most recently updated ones (their logs are read whole). */
export const USAGE_LOG_SESSIONS = 50;

/**
 * Reads the cache breaks and side calls of the most recently updated sessions of a workspace (or
 * of every one). A session's own records only: what a fork copied from its source comes before
 * the fork's last `forked` record and is counted under the source. Lines are picked by their head
 * (docs/reference.md, Wire records) and only those parsed; a log that cannot be read is skipped.
 */
export function readUsageLogs(store: SessionStore, workspaceKey: string | undefined, limit = USAGE_LOG_SESSIONS): UsageLogs {
  const rows = store.index.list({ ...(workspaceKey ? { workspaceKey } : {}), limit: limit + 1 });
  const sessions: SessionUsageLog[] = [];
  for (const row of rows.slice(0, limit)) {
    let file: string;
    try {
      file = store.layout.agentLog(store.locate(row.id));
    } catch {
      continue; // deleted since the index was read
    }
    const own = readOwnRecords(file);
    if (own) sessions.push({ row, ...own });
  }
  return { sessions, more: rows.length > limit };
}

/** A log's own cache breaks and side calls (undefined when it cannot be opened). */
function readOwnRecords(file: string): Omit<SessionUsageLog, 'row'> | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  let breaks: CacheBreakRecord[] = [];
  let sideCalls: SessionUsageLog['sideCalls'] = {};
  try {
    walkLines(fd, 0, fs.fstatSync(fd).size, {
      line: (buf, start, end) => {
        const type = headType(buf, start, end);
        if (type !== 'cache_break' && type !== 'usage' && type !== 'forked') return;
        const parsed = parseRecordLine(buf.toString('utf8', start, end));
        if (!('record' in parsed) || !isKnown(parsed.record)) return;
        const r = parsed.record;
        if (r.t === 'forked') {
          breaks = [];
          sideCalls = {};
        } else if (r.t === 'cache_break') breaks.push(r);
        else if (r.t === 'usage') addSideCall(sideCalls, r);
      },
      overlong: () => undefined,
    });
  } finally {
    fs.closeSync(fd);
  }
  return { breaks, sideCalls };
}

function addSideCall(sideCalls: SessionUsageLog['sideCalls'], u: UsageRecord): void {
  const purpose = SIDE_CALL_PURPOSES.find((p) => p === u.purpose);
  if (!purpose) return;
  const f = (sideCalls[purpose] ??= { calls: 0, input: 0, cacheRead: 0, output: 0, cost: 0 });
  f.calls++;
  f.input += u.input ?? 0;
  f.cacheRead += u.cacheRead ?? 0;
  f.output += u.output ?? 0;
  f.cost += u.cost ?? 0;
}
