// What the header's context meter says: how full the model's context window would be at the next
// request (the session's count and the model's window), its level as it nears the share at which
// the session compacts, and a tooltip of its parts. No DOM here (unit-tested in Node); main.ts shows it.
import type { ContextInfo } from '../../src/protocol/frames';

/** Within this share of the window below the compaction threshold, the meter warns. */
const WARN_MARGIN = 0.1;

const number = (n: number) => Math.round(n).toLocaleString('en-US');

/** The meter's level: `full` at or past the compaction threshold, `warn` near it, else `ok`. */
export function contextLevel(share: number, threshold: number): 'ok' | 'warn' | 'full' {
  if (share >= threshold) return 'full';
  return share + 1e-9 >= threshold - WARN_MARGIN ? 'warn' : 'ok'; // 0.8 - 0.1 is 0.7000000000000001
}

/** The tooltip: the fill, its parts, and when the session compacts. */
export function contextTooltip(context: ContextInfo, window: number): string {
  const share = context.used / window;
  const estimated = context.measured ? 'the last request as the provider counted it, and an estimate since' : 'an estimate';
  const near = contextLevel(share, context.threshold);
  return [
    `Context: ${number(context.used)} of ${number(window)} tokens (${Math.round(share * 100)}%), ${estimated}`,
    `System prompt and tools: about ${number(context.system)}`,
    `Conversation: ${context.measured ? '' : 'about '}${number(context.conversation)}`,
    `Attachments: ${context.attachments > 0 ? `about ${number(context.attachments)}` : 'none'}`,
    `Braid compacts the conversation at ${Math.round(context.threshold * 100)}% (${number(context.threshold * window)} tokens)${near === 'full' ? ': at the end of the next turn' : near === 'warn' ? ': soon' : ''}.`,
  ].join('\n');
}
