import type { UsageRecord } from '../wire/records';
import type { UsageTotals } from './sessionState';

/**
 * Usage a session's log holds, for one day (UTC), one model and one origin: the session whose own
 * calls these are (the session itself, or for a fork the session it inherited them from).
 */
export interface UsageBucket extends UsageTotals {
  origin: string;
  day: string;
  provider: string;
  model: string;
  calls: number;
}

const DAY_MS = 86_400_000;
/** The last day named, by its number since 1970: a log's records come a day at a time. */
let lastDay = { number: Number.NaN, text: '' };

/** The UTC day of a record's time; `unknown` for a time no clock gives (a damaged or hand-made record). */
export function dayOf(ts: number): string {
  const number = Math.floor(Math.trunc(ts) / DAY_MS); // a Date drops a time's fraction toward zero
  if (number === lastDay.number) return lastDay.text;
  const date = new Date(ts);
  if (Number.isNaN(date.getTime())) return 'unknown';
  lastDay = { number, text: date.toISOString().slice(0, 10) };
  return lastDay.text;
}

/** Adds a usage record's tokens and cost to running totals. */
export function addToTotals(totals: UsageTotals, u: Pick<UsageRecord, 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'reasoning' | 'cost'>): void {
  totals.input += u.input ?? 0;
  totals.output += u.output ?? 0;
  totals.cacheRead += u.cacheRead ?? 0;
  totals.cacheWrite += u.cacheWrite ?? 0;
  totals.reasoning += u.reasoning ?? 0;
  totals.cost += u.cost ?? 0;
}

/** Adds one call (its usage record) to buckets, as a call of session `origin`. */
export function addUsage(buckets: UsageBucket[], u: UsageRecord, origin: string): void {
  const day = dayOf(u.ts);
  const provider = u.provider ?? '';
  const model = u.model ?? '';
  let b = buckets.find((x) => x.origin === origin && x.day === day && x.provider === provider && x.model === model);
  if (!b) {
    b = { origin, day, provider, model, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 };
    buckets.push(b);
  }
  b.calls++;
  addToTotals(b, u);
}

/** Calls, tokens and cost. */
export interface UsageFigures extends UsageTotals {
  calls: number;
}

export function zeroFigures(): UsageFigures {
  return { calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 };
}

export function addFigures(to: UsageFigures, b: UsageFigures): void {
  to.calls += b.calls;
  to.input += b.input;
  to.output += b.output;
  to.cacheRead += b.cacheRead;
  to.cacheWrite += b.cacheWrite;
  to.reasoning += b.reasoning;
  to.cost += b.cost;
}

/** One session's usage, as its own line shows it. */
export interface SessionUsage {
  /** Its own calls: what usage reports count under it. */
  own: UsageFigures;
  /** The calls its log inherited from the session it was forked from (counted under that session). */
  inherited: UsageFigures;
  /** What its whole history cost: own and inherited. */
  history: UsageFigures;
}

/** Session `sessionId`'s usage from its buckets (the index's rows of it, or its summary's in memory). */
export function sessionUsageOf(buckets: readonly UsageBucket[], sessionId: string): SessionUsage {
  const usage: SessionUsage = { own: zeroFigures(), inherited: zeroFigures(), history: zeroFigures() };
  for (const b of buckets) {
    addFigures(b.origin === sessionId ? usage.own : usage.inherited, b);
    addFigures(usage.history, b);
  }
  return usage;
}
