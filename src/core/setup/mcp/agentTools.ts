import type { AgentTool, AgentToolResult } from '@mariozechner/pi-agent-core';
import type { ImageContent, TextContent } from '@mariozechner/pi-ai';
import type { ApprovalGate } from '../../tools/approvals';
import { capText } from '../../tools/context';
import { isObject } from '../settingsFiles';
import type { McpHub } from './hub';
import type { McpToolInfo } from './serverTools';

// The running servers' tools as the model's tools. Every call asks the approval gate (a
// permission rule can allow `mcp__<server>__<tool>` there), has a deadline, ends at once on Stop,
// and comes back bounded; a call that fails is an error result for the model, and the turn goes on.

/** What the log keeps of an MCP call besides its arguments and its bounded result. */
export interface McpCallDetails {
  readonly server: string;
  readonly tool: string;
}

/** Images larger than this are described instead of sent. */
const MAX_IMAGE_BASE64 = 4 * 1024 * 1024;

/** The tools of every running server, sorted by name (the order a prompt lists them in stays put). */
export function mcpAgentTools(hub: McpHub, gate: ApprovalGate): AgentTool[] {
  return hub
    .running()
    .flatMap(({ tools, callTimeoutMs }) => tools.map((t) => agentTool(hub, gate, t, callTimeoutMs)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function agentTool(hub: McpHub, gate: ApprovalGate, tool: McpToolInfo, timeoutMs: number): AgentTool {
  return {
    name: tool.agentName,
    label: `${tool.server}: ${tool.name}`,
    description: tool.description || `The tool "${tool.name}" of the MCP server "${tool.server}".`,
    parameters: tool.inputSchema as never,
    async execute(_toolCallId, params, signal): Promise<AgentToolResult<McpCallDetails>> {
      const args = isObject(params) ? params : {};
      await gate.check({ tool: 'mcp', toolName: tool.agentName, summary: `${tool.server}: ${tool.name}`, args: JSON.stringify(args) }, signal);
      let result: Record<string, unknown>;
      try {
        result = await hub.request(tool.server, 'tools/call', { name: tool.name, arguments: args }, { timeoutMs, ...(signal ? { signal } : {}) });
      } catch (err) {
        throw new Error(`MCP server "${tool.server}", tool "${tool.name}": ${(err as Error).message}`, { cause: err });
      }
      const content = resultContent(result);
      if (result.isError === true)
        throw new Error(capText(content.map((c) => (c.type === 'text' ? c.text : '[image]')).join('\n') || 'the tool reported an error'));
      return { content, details: { server: tool.server, tool: tool.name } };
    },
  };
}

/** A call's result as content the model reads: text capped like every tool's output, images within bounds. */
export function resultContent(result: Record<string, unknown>): Array<TextContent | ImageContent> {
  const texts: string[] = [];
  const images: ImageContent[] = [];
  const blocks = Array.isArray(result.content) ? result.content : [];
  for (const block of blocks) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'image' && typeof block.data === 'string' && typeof block.mimeType === 'string') {
      if (block.data.length <= MAX_IMAGE_BASE64) images.push({ type: 'image', data: block.data, mimeType: block.mimeType });
      else texts.push(`[an image of ${block.data.length} base64 characters was left out: too large]`);
    } else if (block.type === 'resource' && isObject(block.resource)) {
      const r = block.resource;
      texts.push(typeof r.text === 'string' ? r.text : `[binary resource ${String(r.uri ?? '')} (${String(r.mimeType ?? 'unknown type')}) not shown]`);
    } else if (block.type === 'resource_link') texts.push(`[resource link: ${String(block.uri ?? '')}${block.name ? ` (${String(block.name)})` : ''}]`);
    else texts.push(`[${String(block.type)} content not shown]`);
  }
  if (blocks.length === 0 && result.structuredContent !== undefined) texts.push(JSON.stringify(result.structuredContent));
  const text = capText(texts.join('\n'));
  return [...(text || images.length === 0 ? [{ type: 'text' as const, text: text || '(no output)' }] : []), ...images];
}
