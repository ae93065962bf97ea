import type { Message } from '@mariozechner/pi-ai';
import { codePointsStart, oneLineStart } from './textStart';

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

/** The first PREVIEW_CHARS characters (code points) of a text on one line: runs of spaces and line breaks become one space, bidi controls go. Only the text's start is read. */
export function previewOf(text: string): string {
  // PREVIEW_CHARS code points take at most twice as many units.
  return codePointsStart(oneLineStart(text, 2 * PREVIEW_CHARS).line, PREVIEW_CHARS);
}
