import type { Message } from '@mariozechner/pi-ai';
import { labelText } from './titles';

/** Previews keep this many characters. */
const PREVIEW_CHARS = 200;

/** The text blocks of a message, joined. */
export function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const parts: string[] = [];
  for (const block of message.content) if (block.type === 'text') parts.push(block.text);
  return parts.join('\n');
}

/**
 * What the user typed in a user message: its last text block (earlier blocks are reminders
 * Braid added: docs/reference.md, Turns and prompts), or the whole text of any other message.
 */
export function promptText(message: Message): string {
  if (message.role !== 'user' || typeof message.content === 'string') return messageText(message);
  const texts = message.content.filter((b): b is { type: 'text'; text: string } => b.type === 'text');
  return texts.at(-1)?.text ?? '';
}

/** A preview looks at this many UTF-16 units of a long text first: a preview of it is the whole text's unless spaces filled it. */
const PREVIEW_WINDOW = 4096;

/** The first PREVIEW_CHARS characters (code points) of a text on one line: runs of spaces and line breaks become one space, bidi controls go. */
export function previewOf(text: string): string {
  if (text.length > PREVIEW_WINDOW) {
    // The flattened beginning of a text is the beginning of the flattened text (but for its last unit, which may be half of a pair).
    const flat = oneLine(text.slice(0, PREVIEW_WINDOW));
    const end = codePointsEnd(flat, PREVIEW_CHARS);
    if (end <= flat.length - 2) return flat.slice(0, end);
  }
  const flat = oneLine(text);
  return flat.slice(0, codePointsEnd(flat, PREVIEW_CHARS));
}

/** What flattening changes: a space other than U+0020, two in a row, one at either end, a bidi control. */
const NOT_ONE_LINE = /[^\S ]| {2}|^ | $|[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

function oneLine(text: string): string {
  return NOT_ONE_LINE.test(text) ? labelText(text).replace(/\s+/g, ' ').trim() : text;
}

/** Where the first `count` code points of `text` end (a lone surrogate counts as one, as Array.from counts it). */
function codePointsEnd(text: string, count: number): number {
  if (text.length <= count) return text.length;
  let end = 0;
  for (let n = 0; n < count && end < text.length; n++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return end;
}
