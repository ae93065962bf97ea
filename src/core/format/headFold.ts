import type { Message } from '@mariozechner/pi-ai';
import { readLineHead, trailingTs, type LineHead } from '../wire/lineHead';
import { isChangeUndoLine, type KnownRecord } from '../wire/records';
import { TODO_TOOL } from './todoList';

/** Record types of which the fold takes only the turn and the time (their turn exists). */
const TURN_ONLY = new Set(['tool', 'file_change', 'compaction', 'context']);
/** How the writer writes a text block; an assistant message without one gives the fold no preview. */
const TEXT_BLOCK = Buffer.from('"type":"text"');
/** The tool whose results the fold reads (the todo list), not just counts. */
const TODO_TOOL_NAME = Buffer.from(TODO_TOOL);

/**
 * A record the fold takes exactly as it takes the line's own, made from the line's head and end
 * alone (see lineHead.ts), for lines the fold only counts: a tool result (of a tool its head
 * names, todo_write's excepted: the fold reads its list) or an assistant message
 * without a text block (a message of its turn), a tool, file change, compaction or context record (its
 * turn exists). Undefined for any other line, or one not laid out as the writer writes; the
 * caller parses those. A line so taken is taken as whole: one damaged between a whole head and
 * end counts where a parse would skip it.
 */
export function recordFromHead(buf: Buffer, start: number, end: number, head: LineHead | undefined = readLineHead(buf, start, end)): KnownRecord | undefined {
  if (head?.turn === undefined) return undefined;
  const counted = head.role === 'toolResult' ? countedResult(buf, head) : head.role === 'assistant' && !buf.subarray(start, end).includes(TEXT_BLOCK);
  if (!counted && !TURN_ONLY.has(head.type)) return undefined;
  if (head.type === 'file_change' && isChangeUndoLine(buf, start, end)) return undefined; // the fold notes where those lie
  const ts = trailingTs(buf, start, end);
  if (ts === undefined) return undefined;
  const { turn } = head;
  if (!counted) return { v: 1, ts, t: 'tool', turn, toolCallId: '', name: '', phase: 'end' };
  const message: Message = { role: 'toolResult', toolCallId: '', toolName: '', content: [], isError: false, timestamp: ts };
  return { v: 1, ts, t: 'message', turn, id: '', message };
}

/** Whether a tool result's head names its tool, and the fold only counts that tool's results. */
function countedResult(buf: Buffer, head: LineHead): boolean {
  if (head.toolNameStart < 0) return false;
  const name = buf.subarray(head.toolNameStart, head.toolNameEnd);
  return !name.equals(TODO_TOOL_NAME);
}
