// The rows of the benchmark table: Braid's figure, the floor or peer it is set against in the
// same run, and the ratio between them said in words ("12x faster", "3.1x slower").

/** A time and the peak resident memory of the process while it was taken. */
export interface Figure {
  readonly ms: number;
  /** Peak resident memory (MB) of the measuring process during this measure; absent when not measured. */
  readonly peakMb?: number;
}

/** One row: what is measured, Braid's figure, and what it is compared with. */
export interface Row {
  /** The heading the row is under (a store's size, a log's); set when it is added. */
  readonly group?: string;
  readonly what: string;
  readonly braid: string;
  readonly against: string;
  /** What it is set against, without its figure: "(a2) head + stat of every log". */
  readonly label?: string;
  /** The figure it is set against: "132 ms, 97 MB". */
  readonly other?: string;
  readonly ratio: string;
  /** Braid is slower than the floor or peer it is set against, or misses a stated goal. */
  readonly notAhead: boolean;
  /** More than 10 times its floor, with no goal set. */
  readonly farAboveFloor?: boolean;
}

/** "12.3 ms, 85 MB" (the digits follow the size of the time). */
export function fmt(f: Figure): string {
  const digits = f.ms < 1 ? 3 : f.ms < 10 ? 2 : f.ms < 100 ? 1 : 0;
  const time = f.ms >= 10_000 ? `${(f.ms / 1000).toFixed(1)} s` : `${f.ms.toFixed(digits)} ms`;
  return f.peakMb === undefined ? time : `${time}, ${f.peakMb.toFixed(0)} MB`;
}

/** Braid against a peer or floor, in words: "19x faster", "1.4x slower", "same". */
export function ratioWords(braidMs: number, otherMs: number): string {
  const r = otherMs / braidMs;
  if (r >= 1.05) return `${r.toFixed(r >= 10 ? 0 : 1)}x faster`;
  if (r <= 1 / 1.05) return `${(1 / r).toFixed(1 / r >= 10 ? 0 : 1)}x slower`;
  return 'about the same';
}

/** A row of Braid against a peer pattern (`otherLabel`: "(a2) head + stat"). */
export function versus(what: string, braid: Figure, otherLabel: string, other: Figure): Row {
  return {
    what,
    braid: fmt(braid),
    against: `${otherLabel}: ${fmt(other)}`,
    label: otherLabel,
    other: fmt(other),
    ratio: ratioWords(braid.ms, other.ms),
    notAhead: braid.ms > other.ms * 1.05,
  };
}

/** A row of Braid against a floor (the least work the job takes): "2.1x the floor", not ahead above `goal`x when given. */
export function overFloor(what: string, braid: Figure, floorLabel: string, floor: Figure, goal?: number): Row {
  const times = braid.ms / floor.ms;
  const goalText = goal === undefined ? '' : times <= goal ? ` (goal <= ${goal}x: met)` : ` (goal <= ${goal}x: not met)`;
  return {
    what,
    braid: fmt(braid),
    against: `floor, ${floorLabel}: ${fmt(floor)}`,
    label: `floor, ${floorLabel}`,
    other: fmt(floor),
    ratio: `${times.toFixed(times >= 10 ? 0 : 2)}x the floor${goalText}`,
    notAhead: goal !== undefined && times > goal,
    farAboveFloor: goal === undefined && times > 10,
  };
}

/** A row with a goal in ms (`goalText` says how it is set); not ahead when missed. */
export function underGoal(what: string, braid: Figure, goalMs: number, goalText: string, against = ''): Row {
  const met = braid.ms <= goalMs;
  return {
    what,
    braid: fmt(braid),
    against: against || `goal: ${goalText} = ${fmt({ ms: goalMs })}`,
    label: 'its goal',
    other: fmt({ ms: goalMs }),
    ratio: `${met ? 'met' : 'not met'} (${(braid.ms / goalMs).toFixed(2)}x the goal)`,
    notAhead: !met,
  };
}

/** `row` with a goal in ms added to its verdict; missing the goal makes it a row where Braid is not ahead. */
export function withGoal(row: Row, braidMs: number, goalMs: number, goalText: string): Row {
  const met = braidMs <= goalMs;
  return { ...row, ratio: `${row.ratio}; goal <= ${goalText}: ${met ? 'met' : 'not met'}`, notAhead: row.notAhead || !met };
}

/** A row of a figure that has nothing to be set against here (a size). */
export function plain(what: string, braid: string, against = '', ratio = ''): Row {
  return { what, braid, against, ratio, notAhead: false };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The rows as markdown tables, one under each group's heading (and its note), in the order they were added. */
export function markdownTables(rows: readonly Row[], notes: Readonly<Record<string, string>> = {}): string {
  const groups = [...new Set(rows.map((r) => r.group ?? ''))];
  return groups
    .map((group) =>
      [
        ...(group ? [`### ${group}`, ''] : []),
        ...(notes[group] ? [notes[group]!, ''] : []),
        '| measure | Braid (time, peak memory) | peer pattern or floor, same run | Braid vs it |',
        '| --- | --- | --- | --- |',
        ...rows.filter((r) => (r.group ?? '') === group).map((r) => `| ${r.what} | ${r.braid} | ${r.against} | ${r.ratio} |`),
      ].join('\n'),
    )
    .join('\n\n');
}

/** A group's short name: "100k sessions", "1k-record log". */
const shortGroup = (group = '') => group.split(' over ')[0]!.split(' (')[0]!;

/** One line per measure where Braid is slower or misses its goal at some size, with its figures at each. */
export function notAheadList(rows: readonly Row[]): string {
  return byMeasure(rows.filter((r) => r.notAhead));
}

/** One line per measure that is more than 10 times its floor at some size, with its figures at each. */
export function farAboveFloorList(rows: readonly Row[]): string {
  return byMeasure(rows.filter((r) => r.farAboveFloor));
}

function byMeasure(chosen: readonly Row[]): string {
  const byMeasure = new Map<string, Row[]>();
  for (const r of chosen) {
    const label = (r.label ?? r.against).replace(/\s*\[[^\]]*\]/g, '');
    const key = `${r.what}, against ${label}`;
    byMeasure.set(key, [...(byMeasure.get(key) ?? []), r]);
  }
  if (byMeasure.size === 0) return '- (none in this run)';
  return [...byMeasure]
    .map(([key, list]) => `- ${key}: ${list.map((r) => `${shortGroup(r.group)} ${r.braid} vs ${r.other ?? r.against} (${r.ratio})`).join('; ')}`)
    .join('\n');
}
