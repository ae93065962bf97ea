import type { ToolResultMessage } from '@mariozechner/pi-ai';
import type { History } from '../wire/replay';

/** The shell commands of the turns a rewind drops, by what is known of them. */
export interface DroppedCommands {
  /** Commands that ran: their effects outside the files Braid restores cannot be undone. */
  readonly ran: string[];
  /** Commands whose result is unknown (Braid stopped or crashed before it came back): they may have run. */
  readonly mayHaveRun: string[];
  /** MCP tool calls (`mcp__<server>__<tool> <arguments>`): they may have changed things outside Braid's checkpoints. */
  readonly mcpCalls: string[];
}

/**
 * Sorts the `bash` calls of turns >= `toTurn` by whether they ran. The bash tool's own result
 * carries its exit code (`details.exitCode`), and a command that changed files has file changes;
 * a call the user denied, the workspace refused or whose arguments were invalid never started,
 * and the kernel answered it with an error whose `details` is empty. A call with no result, or
 * with the result Braid wrote for it when the real one was lost (which has no `details`), may
 * have run. Calls in an answer that ended in an error or was stopped were never executed.
 */
export function droppedCommands(history: Pick<History, 'messages' | 'fileChanges'>, toTurn: number): DroppedCommands {
  const results = new Map<string, ToolResultMessage>();
  for (const m of history.messages) if (m.turn >= toTurn && m.message.role === 'toolResult') results.set(m.message.toolCallId, m.message);
  const changedFiles = new Set(history.fileChanges.filter((c) => c.turn >= toTurn).map((c) => c.toolCallId));
  const ran: string[] = [];
  const mayHaveRun: string[] = [];
  const mcpCalls: string[] = [];
  for (const m of history.messages) {
    const message = m.message;
    if (m.turn < toTurn || message.role !== 'assistant' || message.stopReason === 'error' || message.stopReason === 'aborted') continue;
    for (const block of message.content) {
      // What a server did is beyond Braid's checkpoints whether or not its answer came back.
      if (block.type === 'toolCall' && block.name.startsWith('mcp__')) mcpCalls.push(`${block.name} ${JSON.stringify(block.arguments ?? {})}`);
      if (block.type !== 'toolCall' || block.name !== 'bash') continue;
      const command = String((block.arguments as { command?: unknown }).command ?? '');
      const result = results.get(block.id);
      const details = result?.details as Record<string, unknown> | undefined;
      if (changedFiles.has(block.id) || (details !== undefined && 'exitCode' in details)) ran.push(command);
      else if (details === undefined) mayHaveRun.push(command);
    }
  }
  return { ran, mayHaveRun, mcpCalls };
}
