/**
 * What a log line says about itself in its first and last bytes, read without parsing it. The
 * writer serializes every record as `{"v":1,"t":"<type>",<the record's fields in order>,"ts":<ms>}`
 * (WireLogWriter.serialize), so a line in that form names its type, its turn and, for a message,
 * its id and role up front, and its time at the end. A line in any other form (written by hand,
 * damaged, another key order or spacing) gives nothing here, and readers parse it instead.
 */

/** A line's head as the writer lays it out. Fields the line does not have in that layout are undefined. */
export interface LineHead {
  readonly type: string;
  /** The record's `turn`, when it follows the type as a non-negative integer. */
  readonly turn: number | undefined;
  /** A message's id and role, when they follow the turn. */
  readonly id: string | undefined;
  readonly role: string | undefined;
  /** A tool result's call id and tool name, when they follow the role. */
  readonly toolCallId: string | undefined;
  readonly toolName: string | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');
const OPEN_V = ascii('{"v":');
const COMMA_T = ascii(',"t":"');
const COMMA_TURN = ascii(',"turn":');
const COMMA_ID = ascii(',"id":"');
const MESSAGE_ROLE = ascii(',"message":{"role":"');
const TOOL_CALL_ID = ascii(',"toolCallId":"');
const TOOL_NAME = ascii(',"toolName":"');
const TS = ascii(',"ts":');

/** Whether `buf` holds `literal` at `at` (before `end`). */
function matches(buf: Buffer, at: number, end: number, literal: Buffer): boolean {
  if (at + literal.length > end) return false;
  for (let i = 0; i < literal.length; i++) if (buf[at + i] !== literal[i]) return false;
  return true;
}

/** The end of the run of digits at `at` (at itself when there is none). */
function digitsEnd(buf: Buffer, at: number, end: number): number {
  let i = at;
  while (i < end && buf[i]! >= 0x30 && buf[i]! <= 0x39) i++;
  return i;
}

/** The small integer of the digits in [from, to), or undefined when there are none or too many to be exact. */
function integerOf(buf: Buffer, from: number, to: number): number | undefined {
  if (to === from || to - from > 15) return undefined;
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + (buf[i]! - 0x30);
  return n;
}

/** The end of a plain string's characters at `at`: up to its closing quote; -1 if it has an escape or does not close. */
function plainStringEnd(buf: Buffer, at: number, end: number): number {
  for (let i = at; i < end; i++) {
    const c = buf[i]!;
    if (c === QUOTE) return i;
    if (c === BACKSLASH || c < 0x20) return -1;
  }
  return -1;
}

/**
 * The type a line's head names, or undefined when the line does not begin as the writer begins
 * one. Cheap enough to run on every line of a large log.
 */
export function headType(buf: Buffer, start: number, end: number): string | undefined {
  return typeSpan(buf, start, end)?.type;
}

function typeSpan(buf: Buffer, start: number, end: number): { type: string; after: number } | undefined {
  if (!matches(buf, start, end, OPEN_V)) return undefined;
  const vEnd = digitsEnd(buf, start + OPEN_V.length, end);
  if (vEnd === start + OPEN_V.length || !matches(buf, vEnd, end, COMMA_T)) return undefined;
  const typeStart = vEnd + COMMA_T.length;
  let i = typeStart;
  while (i < end && ((buf[i]! >= 0x61 && buf[i]! <= 0x7a) || buf[i] === 0x5f)) i++;
  if (i === typeStart || buf[i] !== QUOTE) return undefined;
  return { type: buf.toString('latin1', typeStart, i), after: i + 1 };
}

/** A line's head (type, turn; a message's id and role; a tool result's call and tool), or undefined as for {@link headType}. */
export function readLineHead(buf: Buffer, start: number, end: number): LineHead | undefined {
  const typed = typeSpan(buf, start, end);
  if (!typed) return undefined;
  const head = { type: typed.type, turn: undefined as number | undefined, id: undefined as string | undefined, role: undefined as string | undefined };
  const tool = { toolCallId: undefined as string | undefined, toolName: undefined as string | undefined };
  let at = typed.after;
  if (!matches(buf, at, end, COMMA_TURN)) return { ...head, ...tool };
  const turnEnd = digitsEnd(buf, at + COMMA_TURN.length, end);
  // A number goes on (a fraction, an exponent) or ends the field: only an integer followed by `,` or `}` is one.
  if (buf[turnEnd] === 0x2c || buf[turnEnd] === 0x7d) head.turn = integerOf(buf, at + COMMA_TURN.length, turnEnd);
  at = turnEnd;
  if (head.turn === undefined || typed.type !== 'message' || !matches(buf, at, end, COMMA_ID)) return { ...head, ...tool };
  const idEnd = plainStringEnd(buf, at + COMMA_ID.length, end);
  if (idEnd < 0 || !matches(buf, idEnd + 1, end, MESSAGE_ROLE)) return { ...head, ...tool };
  const roleEnd = plainStringEnd(buf, idEnd + 1 + MESSAGE_ROLE.length, end);
  if (roleEnd < 0) return { ...head, ...tool };
  head.id = buf.toString('utf8', at + COMMA_ID.length, idEnd);
  head.role = buf.toString('latin1', idEnd + 1 + MESSAGE_ROLE.length, roleEnd);
  at = roleEnd + 1;
  if (head.role !== 'toolResult' || !matches(buf, at, end, TOOL_CALL_ID)) return { ...head, ...tool };
  const callEnd = plainStringEnd(buf, at + TOOL_CALL_ID.length, end);
  if (callEnd < 0 || !matches(buf, callEnd + 1, end, TOOL_NAME)) return { ...head, ...tool };
  const nameEnd = plainStringEnd(buf, callEnd + 1 + TOOL_NAME.length, end);
  if (nameEnd < 0) return { ...head, ...tool };
  tool.toolCallId = buf.toString('utf8', at + TOOL_CALL_ID.length, callEnd);
  tool.toolName = buf.toString('utf8', callEnd + 1 + TOOL_NAME.length, nameEnd);
  return { ...head, ...tool };
}

/** The `ts` a line ends with (`,"ts":<digits>}`, as the writer ends every line), or undefined. */
export function trailingTs(buf: Buffer, start: number, end: number): number | undefined {
  if (end - start < TS.length + 2 || buf[end - 1] !== 0x7d) return undefined;
  let i = end - 1;
  while (i > start && buf[i - 1]! >= 0x30 && buf[i - 1]! <= 0x39) i--;
  if (i === end - 1 || !matches(buf, i - TS.length, end, TS)) return undefined;
  return integerOf(buf, i, end - 1);
}
