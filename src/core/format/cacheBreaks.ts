import type { CacheBreakRecord } from '../wire/records';

/** One line about a break, as the CLI, the Usage view and the transcript say it: what changed, the tokens, the cost. */
export function cacheBreakLine(b: Pick<CacheBreakRecord, 'detail' | 'cacheRead' | 'expected' | 'cost' | 'agentId'>): string {
  const tokens = `${(b.expected - b.cacheRead).toLocaleString('en-US')} tokens not read from the cache`;
  const cost = b.cost > 0 ? `, about $${b.cost < 0.01 ? b.cost.toFixed(4) : b.cost.toFixed(2)}` : '';
  return `${b.agentId ? 'a subagent: ' : ''}${b.detail}: ${tokens}${cost}`;
}
