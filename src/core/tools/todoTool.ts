import { Type } from '@mariozechner/pi-ai';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { textResult } from './context';
import { ToolError } from './workspaceFs';
import { parseTodoItems, TODO_LIMITS, TODO_TOOL, todoListText } from '../format/todoList';

/**
 * `todo_write`: the model's task list, given whole at each call. The result's details hold the
 * list: the log's fold reads it from there (src/core/format/logFold.ts), the chat shows it. It
 * writes nothing else, so it runs in every mode without asking.
 */
export function todoTool(): AgentTool {
  return {
    name: TODO_TOOL,
    label: 'Todo list',
    description: [
      'Keep your task list for work of several steps: the user sees it as a checklist.',
      'Give the whole list each time (it replaces the one before); an empty list clears it.',
      'Mark one item in_progress while you work on it and mark it done as soon as it is finished; add items you discover, remove ones that no longer apply.',
      'Skip it for a single simple step.',
    ].join(' '),
    parameters: Type.Object({
      todos: Type.Array(
        Type.Object({
          text: Type.String({ description: `What to do, in one short line (at most ${TODO_LIMITS.textChars} characters)` }),
          status: Type.Union([Type.Literal('pending'), Type.Literal('in_progress'), Type.Literal('done')]),
        }),
        { description: `The whole list, in order (at most ${TODO_LIMITS.items} items)` },
      ),
    }),
    async execute(_id, raw: unknown) {
      const items = parseTodoItems(raw);
      if (!Array.isArray(items)) throw new ToolError(items.error);
      return textResult(`The todo list now reads:\n${todoListText(items)}`, { todos: items });
    },
  };
}
