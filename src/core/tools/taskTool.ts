import { Type } from '@mariozechner/pi-ai';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { textResult } from './context';

/** Runs a subagent and returns its final text; the session provides it. */
export type SubagentRunner = (description: string, prompt: string, signal?: AbortSignal) => Promise<{ agentId: string; text: string }>;

/** `task`: a subagent with its own context and log; several run in parallel; the parent gets its final text. */
export function taskTool(run: SubagentRunner): AgentTool {
  return {
    name: 'task',
    label: 'Subagent',
    description:
      "Hand a self-contained task to a subagent with its own context (read-only tools: read_file, list_dir, glob, grep). Several tasks in one message run in parallel. Returns the subagent's final answer.",
    parameters: Type.Object({
      description: Type.String({ description: 'A short name for the task (3 to 6 words)' }),
      prompt: Type.String({ description: 'Everything the subagent needs to know to do the task' }),
    }),
    executionMode: 'parallel',
    async execute(_id, raw: unknown, signal) {
      const params = raw as { description: string; prompt: string };
      const result = await run(params.description, params.prompt, signal);
      return textResult(result.text || '(the subagent gave no answer)', { agentId: result.agentId });
    },
  };
}
