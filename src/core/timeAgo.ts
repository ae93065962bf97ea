/**
 * "5 min ago" style times, for the Sessions tree and the CLI. Under a minute it says "just now",
 * or the seconds with `seconds` (the CLI, where a turn just run should show as such).
 */
export function timeAgo(ts: number, now = Date.now(), seconds = false): string {
  const s = Math.max(0, Math.round((now - ts) / 1000));
  if (s < 60) return seconds ? `${s} s ago` : 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}
