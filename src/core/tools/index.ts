import type { AgentTool } from '@mariozechner/pi-agent-core';
import { bashTool } from './bashTool';
import type { ToolContext } from './context';
import { globTool, grepTool, listDirTool, readFileTool } from './readTools';
import { editFileTool, writeFileTool } from './writeTools';

/** Tools that only read: what subagents get by default. */
export function readOnlyTools(ctx: ToolContext): AgentTool[] {
  return [readFileTool(ctx), listDirTool(ctx), globTool(ctx), grepTool(ctx)];
}

/** Every tool of the main agent (docs/reference.md, Tools), `task` and `todo_write` excepted: the session adds them. */
export function workspaceTools(ctx: ToolContext): AgentTool[] {
  return [...readOnlyTools(ctx), writeFileTool(ctx), editFileTool(ctx), bashTool(ctx)];
}

/** Tools in the order of their names: the order a prompt lists them in never depends on how they were gathered. */
export function sortedByName(tools: readonly AgentTool[]): AgentTool[] {
  return [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
