import type { MessageRecord } from '../../core/wire/records';
import { messageText, promptText } from '../../core/store/summary';
import type { TranscriptEntry } from '../../protocol/messages';

/** One line describing a tool call: its name and its main argument. */
export function toolSummary(name: string, args: unknown): string {
  const a = (args ?? {}) as Record<string, unknown>;
  const main = a.path ?? a.command ?? a.pattern ?? a.description;
  return typeof main === 'string' ? `${name} ${main}`.slice(0, 200) : name;
}

/** The transcript entries of committed messages. */
export function toEntries(records: readonly MessageRecord[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  const failed = new Set(records.filter((r) => r.message.role === 'toolResult' && r.message.isError).map((r) => (r.message as { toolCallId: string }).toolCallId));
  for (const { message, id } of records) {
    if (message.role === 'user') entries.push({ kind: 'user', text: promptText(message), messageId: id });
    else if (message.role === 'assistant') {
      const text = messageText(message);
      if (text.trim()) entries.push({ kind: 'assistant', text });
      for (const block of message.content) {
        if (block.type === 'toolCall') entries.push({ kind: 'tool', name: block.name, summary: toolSummary(block.name, block.arguments), isError: failed.has(block.id) });
      }
    }
  }
  return entries;
}
