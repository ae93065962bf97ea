/**
 * What a log line says about itself in its first and last bytes, read without parsing it. The
 * writer serializes every record as `{"v":1,"t":"<type>",<the record's fields in order>,"ts":<ms>}`
 * (WireLogWriter.serialize), so a line in that form names its type, its turn and, for a message,
 * its id and role up front, and its time at the end. A line in any other form (written by hand,
 * damaged, another key order or spacing) gives nothing here, and readers parse it instead. A head
 * is taken at its word: JSON keeps the last of two equal keys, and a line that names its type
 * again further on (which the writer never writes) is read by the type its head names.
 */

/** A line's head as the writer lays it out. What the line does not hold in that layout is undefined (or -1). */
export interface LineHead {
  readonly type: string;
  /** The record's `turn`, when it follows the type as a non-negative integer. */
  readonly turn: number | undefined;
  /** A message's role, when its id and role follow the turn. */
  readonly role: string | undefined;
  /** Where a message's id lies in the buffer ([idStart, idEnd)). */
  readonly idStart: number;
  readonly idEnd: number;
  /** Where a tool result's tool name lies in the buffer, when its call id and name follow the role. */
  readonly toolNameStart: number;
  readonly toolNameEnd: number;
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
/** Names heads repeat on every line, handed out without a new string each time. */
const COMMON_NAMES = [
  'message',
  'usage',
  'tool',
  'turn_begin',
  'turn_end',
  'file_change',
  'rewind',
  'forked',
  'compaction',
  'agent',
  'user',
  'assistant',
  'toolResult',
].map((name) => ({ name, bytes: ascii(name) }));

/** Whether `buf` holds `literal` at `at` (before `end`). */
function matches(buf: Buffer, at: number, end: number, literal: Uint8Array): boolean {
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

/** The integer of the digits in [from, to), or undefined when there are none or too many to be exact. */
function integerOf(buf: Buffer, from: number, to: number): number | undefined {
  if (to === from || to - from > 15) return undefined;
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + (buf[i]! - 0x30);
  return n;
}

/** Where a plain string's characters starting at `at` end (its closing quote), or -1 if it holds an escape or does not close. */
function plainStringEnd(buf: Buffer, at: number, end: number): number {
  for (let i = at; i < end; i++) {
    const c = buf[i]!;
    if (c === QUOTE) return i;
    if (c === BACKSLASH || c < 0x20) return -1;
  }
  return -1;
}

/** The ASCII name in [from, to), without a new string for the names every log repeats. */
function nameOf(buf: Buffer, from: number, to: number): string {
  for (const { name, bytes } of COMMON_NAMES) if (bytes.length === to - from && bytes[0] === buf[from] && matches(buf, from, to, bytes)) return name;
  return buf.toString('latin1', from, to);
}

/** Where the type name of a line's head lies, or undefined when the line does not begin as the writer begins one. */
function typeSpan(buf: Buffer, start: number, end: number): { from: number; to: number } | undefined {
  if (!matches(buf, start, end, OPEN_V)) return undefined;
  const vEnd = digitsEnd(buf, start + OPEN_V.length, end);
  if (vEnd === start + OPEN_V.length || !matches(buf, vEnd, end, COMMA_T)) return undefined;
  const from = vEnd + COMMA_T.length;
  let to = from;
  while (to < end && ((buf[to]! >= 0x61 && buf[to]! <= 0x7a) || buf[to] === 0x5f)) to++;
  return to > from && buf[to] === QUOTE ? { from, to } : undefined;
}

/** The type a line's head names, or undefined when the line does not begin as the writer begins one. Cheap enough for every line of a large log. */
export function headType(buf: Buffer, start: number, end: number): string | undefined {
  const span = typeSpan(buf, start, end);
  return span && nameOf(buf, span.from, span.to);
}

/** A line's head (type and turn; a message's id and role; a tool result's tool), or undefined as for {@link headType}. */
export function readLineHead(buf: Buffer, start: number, end: number): LineHead | undefined {
  const span = typeSpan(buf, start, end);
  if (!span) return undefined;
  const type = nameOf(buf, span.from, span.to);
  let turn: number | undefined;
  let role: string | undefined;
  let idStart = -1;
  let idEnd = -1;
  let toolNameStart = -1;
  let toolNameEnd = -1;
  let at = span.to + 1;
  if (matches(buf, at, end, COMMA_TURN)) {
    const digits = at + COMMA_TURN.length;
    at = digitsEnd(buf, digits, end);
    // A number goes on (a fraction, an exponent) or ends the field: only digits followed by `,` or `}` are an integer.
    if (buf[at] === 0x2c || buf[at] === 0x7d) turn = integerOf(buf, digits, at);
  }
  if (turn !== undefined && type === 'message' && matches(buf, at, end, COMMA_ID)) {
    const id = at + COMMA_ID.length;
    const idClose = plainStringEnd(buf, id, end);
    const roleAt = idClose + 1 + MESSAGE_ROLE.length;
    const roleClose = idClose < 0 || !matches(buf, idClose + 1, end, MESSAGE_ROLE) ? -1 : plainStringEnd(buf, roleAt, end);
    if (roleClose >= 0) {
      idStart = id;
      idEnd = idClose;
      role = nameOf(buf, roleAt, roleClose);
      at = roleClose + 1;
      const call = at + TOOL_CALL_ID.length;
      const callClose = role === 'toolResult' && matches(buf, at, end, TOOL_CALL_ID) ? plainStringEnd(buf, call, end) : -1;
      const name = callClose + 1 + TOOL_NAME.length;
      const nameClose = callClose >= 0 && matches(buf, callClose + 1, end, TOOL_NAME) ? plainStringEnd(buf, name, end) : -1;
      if (nameClose >= 0) {
        toolNameStart = name;
        toolNameEnd = nameClose;
      }
    }
  }
  return { type, turn, role, idStart, idEnd, toolNameStart, toolNameEnd };
}

/** Whether the head's message id is `id` (given as bytes). */
export function headIdIs(buf: Buffer, head: LineHead, id: Buffer): boolean {
  return head.idEnd - head.idStart === id.length && matches(buf, head.idStart, head.idEnd, id);
}

/** The `ts` a line ends with (`,"ts":<digits>}`, as the writer ends every line), or undefined. */
export function trailingTs(buf: Buffer, start: number, end: number): number | undefined {
  if (end - start < TS.length + 2 || buf[end - 1] !== 0x7d) return undefined;
  let i = end - 1;
  while (i > start && buf[i - 1]! >= 0x30 && buf[i - 1]! <= 0x39) i--;
  if (i === end - 1 || !matches(buf, i - TS.length, end, TS)) return undefined;
  return integerOf(buf, i, end - 1);
}
