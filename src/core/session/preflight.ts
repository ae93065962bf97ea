import fs from 'node:fs';
import path from 'node:path';
import type { ImageContent, Message, TextContent, UserMessage } from '@mariozechner/pi-ai';
import { reminderBlock, reminderText } from '../format/reminder';

/** Instruction files read into every turn, in this order. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md'];

/** The workspace's instruction files as reminders. */
export function instructionReminders(workspaceDir: string): string[] {
  const out: string[] = [];
  for (const name of INSTRUCTION_FILES) {
    try {
      const text = fs.readFileSync(path.join(workspaceDir, name), 'utf8').trim();
      if (text) out.push(`Instructions from ${name} in the workspace:\n${text.slice(0, 20_000)}`);
    } catch {
      // absent
    }
  }
  return out;
}

/**
 * Of the context reminders a turn would give (instruction files, git context), the ones the model
 * does not have now: not in its context (a new session, or compacted away), or changed since the
 * latest one of their kind it was given. A reminder's kind is its first line ("Instructions from
 * AGENTS.md in the workspace:", "Git context of the workspace:"). So the context goes once, at the
 * start, and again only when it changed: the turns' messages, and the prompt's cached beginning,
 * do not grow by the same text each turn.
 */
export function untold(reminders: readonly string[], context: readonly Message[]): string[] {
  const latest = new Map<string, string>();
  for (const m of context) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) {
      const text = b.type === 'text' ? reminderText(b.text) : undefined;
      if (text !== undefined) latest.set(kindOf(text), text);
    }
  }
  return reminders.filter((r) => latest.get(kindOf(r)) !== r);
}

const kindOf = (reminder: string) => reminder.split('\n', 1)[0]!;

/**
 * The user message: one-shot reminders first, then static reminders, then the attachments'
 * `<attachment …>` blocks and images, the user's text always last. Every block before the
 * user's text ends its line, so the text starts on a line of its own however a provider joins them.
 */
export function buildUserMessage(
  text: string,
  oneShot: readonly string[],
  staticReminders: readonly string[],
  now = Date.now(),
  attachments: readonly string[] = [],
  images: readonly ImageContent[] = [],
): UserMessage {
  const blocks: (TextContent | ImageContent)[] = [...oneShot, ...staticReminders].map((r) => ({ type: 'text', text: reminderBlock(r) }));
  for (const a of attachments) blocks.push({ type: 'text', text: a.endsWith('\n') ? a : `${a}\n` });
  blocks.push(...images);
  blocks.push({ type: 'text', text });
  return { role: 'user', content: blocks, timestamp: now };
}

/** The user's own text of a message built by {@link buildUserMessage} (the last text block). */
export function userTextOf(message: UserMessage): string {
  if (typeof message.content === 'string') return message.content;
  const texts = message.content.filter((b): b is TextContent => b.type === 'text');
  return texts.at(-1)?.text ?? '';
}
