// The Usage page's logic without the DOM: numbers as text, the order of the tables, and the
// chart of tokens per day as geometry. main.ts only turns these into elements.
import type { UsageFiguresView, UsageLineView, UsageSessionView } from '../../../src/protocol/usage';

/** Days the chart covers at most (the tables keep every day). */
export const CHART_DAYS = 60;
/** Days the chart covers at least, so one busy day does not fill the whole width. */
const MIN_CHART_DAYS = 14;
const DAY_MS = 86_400_000;

/** What the chart stacks per day. Cache writes are input the provider also stored. */
export type TokenKind = 'input' | 'cached' | 'output';
export const TOKEN_KINDS: readonly TokenKind[] = ['input', 'cached', 'output'];
export const TOKEN_NAMES: Record<TokenKind, string> = { input: 'Input', cached: 'Cached input', output: 'Output' };

export function tokens(f: UsageFiguresView): Record<TokenKind, number> {
  return { input: f.input + f.cacheWrite, cached: f.cacheRead, output: f.output };
}

export function totalTokens(f: UsageFiguresView): number {
  return f.input + f.cacheWrite + f.cacheRead + f.output;
}

/** 12,345 */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** 950, 12.3k, 4.5M: for axis labels, where room is short. */
export function formatCompact(n: number): string {
  if (n < 1000) return String(Math.round(n));
  const [value, unit] = n < 1e6 ? [n / 1e3, 'k'] : n < 1e9 ? [n / 1e6, 'M'] : [n / 1e9, 'G'];
  return `${value >= 100 ? Math.round(value) : Number(value.toFixed(1))}${unit}`;
}

/** $0.0123: cost to four places, as `braid usage` prints it. */
export function formatCost(cost: number): string {
  return `$${cost.toFixed(4)}`;
}

/** Sessions and models with the most tokens first; days newest first. */
export function byTokens<T extends UsageFiguresView>(lines: readonly T[]): T[] {
  return [...lines].sort((a, b) => totalTokens(b) - totalTokens(a) || b.cost - a.cost);
}

export function newestFirst(days: readonly UsageLineView[]): UsageLineView[] {
  return [...days].sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
}

/** The line under a session's title: a fork's inherited history is counted under its source. */
export function sessionNote(s: UsageSessionView): string | undefined {
  if (s.deleted) return 'Deleted; its forks still hold these calls.';
  if (!s.fork) return undefined;
  const upTo = s.fork.turn === null ? '' : ` (up to turn ${s.fork.turn})`;
  return `Its own calls only: the history it inherited from "${s.fork.sourceTitle}"${upTo} is counted under that session.`;
}

/** One day of the chart. */
export interface ChartDay {
  readonly day: string;
  readonly tokens: Record<TokenKind, number>;
  readonly total: number;
}

const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Every day from the first with usage (at most {@link CHART_DAYS} back, at least
 * {@link MIN_CHART_DAYS}) to today or the last day with usage, days without usage as zero. Days
 * no clock gives (`unknown`) stay in the table only.
 */
export function chartDays(days: readonly UsageLineView[], today: string): ChartDay[] {
  const known = new Map(days.filter((d) => !Number.isNaN(dayMs(d.key))).map((d) => [d.key, d]));
  const keys = [...known.keys()].sort();
  const end = Math.max(dayMs(today), keys.length ? dayMs(keys.at(-1)!) : -Infinity);
  if (Number.isNaN(end)) return [];
  const first = keys.length ? dayMs(keys[0]!) : end;
  const start = Math.min(Math.max(first, end - (CHART_DAYS - 1) * DAY_MS), end - (MIN_CHART_DAYS - 1) * DAY_MS);
  const out: ChartDay[] = [];
  for (let t = start; t <= end; t += DAY_MS) {
    const line = known.get(dayOf(t));
    const split = line ? tokens(line) : { input: 0, cached: 0, output: 0 };
    out.push({ day: dayOf(t), tokens: split, total: split.input + split.cached + split.output });
  }
  return out;
}

/** The smallest 1, 2 or 5 times a power of ten at or above `n` (the top of the axis). */
export function niceCeiling(n: number): number {
  if (n <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= n)!;
}

/** A stacked bar's piece. */
export interface Segment {
  readonly kind: TokenKind;
  readonly y: number;
  readonly height: number;
}
export interface Bar {
  readonly day: string;
  readonly x: number;
  readonly width: number;
  readonly segments: readonly Segment[];
  readonly label: string;
}
export interface Tick {
  readonly y: number;
  readonly label: string;
}
export interface DayLabel {
  readonly x: number;
  readonly label: string;
}

/** The chart in user units of an SVG viewBox of `width` × `height`. */
export interface ChartLayout {
  readonly width: number;
  readonly height: number;
  readonly plot: { readonly left: number; readonly top: number; readonly right: number; readonly bottom: number };
  readonly bars: readonly Bar[];
  readonly ticks: readonly Tick[];
  readonly dayLabels: readonly DayLabel[];
}

const MARGIN = { left: 44, top: 8, right: 8, bottom: 20 };

/** Bars stacked input, cached, output from the bottom; three axis ticks; about six day labels. */
export function chartLayout(days: readonly ChartDay[], width = 720, height = 200): ChartLayout {
  const plot = { left: MARGIN.left, top: MARGIN.top, right: width - MARGIN.right, bottom: height - MARGIN.bottom };
  const top = niceCeiling(Math.max(0, ...days.map((d) => d.total)));
  const scale = (plot.bottom - plot.top) / top;
  const step = days.length ? (plot.right - plot.left) / days.length : 0;
  const bars = days.map((d, i): Bar => {
    let y = plot.bottom;
    const segments = TOKEN_KINDS.filter((k) => d.tokens[k] > 0).map((kind): Segment => {
      const h = d.tokens[kind] * scale;
      y -= h;
      return { kind, y, height: h };
    });
    const parts = TOKEN_KINDS.map((k) => `${formatCount(d.tokens[k])} ${TOKEN_NAMES[k].toLowerCase()}`).join(', ');
    return { day: d.day, x: plot.left + i * step + step * 0.1, width: step * 0.8, segments, label: `${d.day}: ${formatCount(d.total)} tokens (${parts})` };
  });
  const ticks = [0, top / 2, top].map((v) => ({ y: plot.bottom - v * scale, label: formatCompact(v) }));
  // About six labels (MM-DD), always the last day; a regular one too close to it gives way.
  const last = days.length - 1;
  const every = Math.max(1, Math.ceil(days.length / 6));
  const labelled = days.map((_, i) => i).filter((i) => i % every === 0 && last - i >= every / 2);
  if (last >= 0) labelled.push(last);
  const dayLabels = labelled.map((i) => ({ x: plot.left + (i + 0.5) * step, label: days[i]!.day.slice(5) }));
  return { width, height, plot, bars, ticks, dayLabels };
}

export function formatShare(share: number | null): string {
  return share === null ? '–' : `${(share * 100).toFixed(1)}%`;
}
