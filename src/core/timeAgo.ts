const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The unit a time `ms` old is told in: under a minute (null), minutes, hours or days. */
function unitOf(ms: number): number | null {
  return ms < MINUTE ? null : ms < HOUR ? MINUTE : ms < DAY ? HOUR : DAY;
}

const NAMES = new Map([
  [MINUTE, 'min'],
  [HOUR, 'h'],
  [DAY, 'd'],
]);

/**
 * "5 min ago" style times, for the Sessions tree and the CLI. Whole units that have passed (a
 * time 90 s old is "1 min ago", never "2 min ago"). Under a minute it says "just now", or the
 * seconds with `seconds` (the CLI, where a turn just run should show as such).
 */
export function timeAgo(ts: number, now = Date.now(), seconds = false): string {
  const ms = Math.max(0, now - ts);
  const unit = unitOf(ms);
  if (unit === null) return seconds ? `${Math.floor(ms / 1000)} s ago` : 'just now';
  return `${Math.floor(ms / unit)} ${NAMES.get(unit)} ago`;
}

/**
 * When `timeAgo(ts)` (without seconds) next reads differently after `now`: the next whole
 * minute, hour or day of age. A display that redraws then stays true.
 */
export function timeAgoChangesAt(ts: number, now = Date.now()): number {
  const ms = Math.max(0, now - ts); // a time ahead of this clock (another machine's) is "just now" until a minute past it
  const unit = unitOf(ms) ?? MINUTE;
  return ts + (Math.floor(ms / unit) + 1) * unit;
}
