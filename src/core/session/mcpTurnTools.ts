import type { AgentTool } from '@mariozechner/pi-agent-core';
import { mcpAgentTools } from '../setup/mcp/agentTools';
import type { McpHub } from '../setup/mcp/hub';
import type { ApprovalGate } from '../tools/approvals';
import { toolShape } from './cacheWatch';

/**
 * A session's MCP tools, gathered as each turn begins: the window's servers are started the
 * first time a turn needs them (later turns find them running). A server that could not start, or
 * stopped, is told to the model once per reason, as a reminder of the turn, and the turn goes on
 * with the tools that work.
 */
export class McpTurnTools {
  private readonly told = new Set<string>();

  constructor(
    /** The window's hub, or how to find it now (a window makes a new one when its servers' definitions change). */
    private readonly hubNow: McpHub | (() => McpHub),
    private readonly gate: ApprovalGate,
  ) {}

  /** The tools for this turn and the reminders of problems not told yet. */
  async prepare(): Promise<{ tools: AgentTool[]; reminders: string[] }> {
    const hub = typeof this.hubNow === 'function' ? this.hubNow() : this.hubNow;
    await hub.startAll();
    const reminders: string[] = [];
    for (const s of hub.statuses()) {
      if (!s.error || (s.state !== 'failed' && s.state !== 'not started')) continue;
      const note = `The MCP server "${s.name}" is not available: ${s.error}. Its tools are not offered in this turn.`;
      if (this.told.has(note)) continue;
      this.told.add(note);
      reminders.push(note);
    }
    return { tools: mcpAgentTools(hub, this.gate), reminders };
  }
}

/** True when two tool lists would make different prompts (names, descriptions or schemas differ). */
export function toolsDiffer(a: readonly AgentTool[], b: readonly AgentTool[]): boolean {
  return JSON.stringify(toolShape(a)) !== JSON.stringify(toolShape(b));
}
