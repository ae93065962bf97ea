// The tools VS Code offers (`vscode.lm.tools`: other extensions' tools, the MCP servers configured
// in VS Code) as tools of Braid's model, for the ones the user chose. No vscode import: the
// mapping is tested without VS Code; vscodeLmTools.ts gives it VS Code's list and call.
import type { AgentTool } from '@mariozechner/pi-agent-core';
import type { TSchema } from '@mariozechner/pi-ai';
import { capText, textResult, type ToolContext } from '../../core/tools/context';

/** A tool as `vscode.lm.tools` describes it (the fields Braid uses). */
export interface LmToolInfo {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: object | undefined;
}

/** Calls a VS Code tool by its own name; resolves to its result's parts as text (a part that is not text says so). */
export type LmToolCall = (name: string, input: object, signal?: AbortSignal) => Promise<readonly string[]>;

/** The prefix of a VS Code tool's name as Braid's model sees it: it never collides with Braid's own tools. */
export const LM_TOOL_PREFIX = 'vscode__';

/** Providers take tool names of at most 64 characters of `[A-Za-z0-9_-]`. */
const MAX_NAME = 64;

/** The name Braid's model calls a VS Code tool by: `vscode__` and the tool's name with other characters as `_`. */
export function lmAgentToolName(name: string): string {
  return `${LM_TOOL_PREFIX}${name.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, MAX_NAME);
}

/** The names in a `braid.vscodeTools` value: strings only, each once. */
export function chosenToolNames(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return [...new Set(value.filter((v): v is string => typeof v === 'string' && v.trim() !== ''))];
}

/**
 * The chosen tools VS Code offers now, as tools of Braid's model, sorted by name. A chosen tool
 * VS Code does not offer (its extension is gone) is left out; of two tools whose names become
 * the same, the first by VS Code's name is kept.
 */
export function lmAgentTools(offered: readonly LmToolInfo[], chosen: readonly string[], call: LmToolCall, ctx: ToolContext): AgentTool[] {
  const wanted = new Set(chosen);
  const byName = new Map<string, AgentTool>();
  for (const info of [...offered].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const name = lmAgentToolName(info.name);
    if (wanted.has(info.name) && !byName.has(name)) byName.set(name, lmAgentTool(info, name, call, ctx));
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** An empty object: what a tool that declares no input takes. */
const NO_INPUT = { type: 'object', properties: {} };

function lmAgentTool(info: LmToolInfo, name: string, call: LmToolCall, ctx: ToolContext): AgentTool {
  return {
    name,
    label: info.name,
    description: info.description || `The VS Code tool ${info.name}.`,
    // A JSON schema as VS Code has it; the kernel validates the model's arguments against it.
    parameters: (info.inputSchema ?? NO_INPUT) as TSchema,
    async execute(_id, params: unknown, signal) {
      if (!ctx.trusted) throw new Error(`The workspace is not trusted: VS Code tools do not run in it (${info.name}).`);
      const input = typeof params === 'object' && params !== null ? params : {};
      const args = JSON.stringify(input);
      await ctx.approvals.check(
        { tool: 'external', toolName: name, summary: `${info.name} ${args.length > 160 ? `${args.slice(0, 160)}…` : args}`, args },
        signal,
      );
      const parts = await call(info.name, input, signal);
      return textResult(capText(parts.join('\n')) || '(the tool returned nothing)', { tool: info.name });
    },
  };
}
