import type { Message, ToolResultMessage } from '@mariozechner/pi-ai';

/**
 * Tool results for the tool calls at the end of a history that have none (a crash, a fork, a
 * stop), so the history stays valid for the next request: every call answered.
 */
export function closeOpenToolCalls(messages: readonly Message[], text: string): ToolResultMessage[] {
  const answered = new Set<string>();
  for (const m of messages) if (m.role === 'toolResult') answered.add(m.toolCallId);
  const closing: ToolResultMessage[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant' || m.stopReason === 'error' || m.stopReason === 'aborted') continue;
    for (const block of m.content) {
      if (block.type === 'toolCall' && !answered.has(block.id)) {
        closing.push({
          role: 'toolResult',
          toolCallId: block.id,
          toolName: block.name,
          content: [{ type: 'text', text }],
          isError: true,
          timestamp: Date.now(),
        });
        answered.add(block.id);
      }
    }
  }
  return closing;
}
