import type { Message } from '@mariozechner/pi-ai';
import { readLineHead, trailingTs, type LineHead } from '../wire/lineHead';
import type { KnownRecord } from '../wire/records';

/** Record types of which the fold takes only the turn and the time (their turn exists). */
const TURN_ONLY = new Set(['tool', 'file_change', 'compaction', 'context']);
/** How the writer writes a text block; an assistant message without one gives the fold no preview. */
const TEXT_BLOCK = Buffer.from('"type":"text"');

/**
 * A record the fold takes exactly as it takes the line's own, made from the line's head and end
 * alone (see lineHead.ts), for lines the fold only counts: a tool result or an assistant message
 * without a text block (a message of its turn), a tool, file change, compaction or context record (its
 * turn exists). Undefined for any other line, or one not laid out as the writer writes; the
 * caller parses those. A line so taken is taken as whole: one damaged between a whole head and
 * end counts where a parse would skip it.
 */
export function recordFromHead(buf: Buffer, start: number, end: number, head: LineHead | undefined = readLineHead(buf, start, end)): KnownRecord | undefined {
  if (head?.turn === undefined) return undefined;
  const counted = head.role === 'toolResult' || (head.role === 'assistant' && !buf.subarray(start, end).includes(TEXT_BLOCK));
  if (!counted && !TURN_ONLY.has(head.type)) return undefined;
  const ts = trailingTs(buf, start, end);
  if (ts === undefined) return undefined;
  const { turn } = head;
  if (!counted) return { v: 1, ts, t: 'tool', turn, toolCallId: '', name: '', phase: 'end' };
  const message: Message = { role: 'toolResult', toolCallId: '', toolName: '', content: [], isError: false, timestamp: ts };
  return { v: 1, ts, t: 'message', turn, id: '', message };
}
