import { Compile } from 'typebox/compile';
import { sha256Hex } from '../../hash';
import { isObject } from '../settingsFiles';
import type { McpConnection } from './sdkClient';

// A server's tools as Braid offers them to the model: named `mcp__<server>__<tool>` in the
// characters every provider accepts, each with the server's description and input schema. A tool
// whose schema Braid cannot use is left out with a note; the server's other tools still work.

/** One tool of a server, checked. */
export interface McpToolInfo {
  readonly server: string;
  /** The tool's name on its server. */
  readonly name: string;
  /** The name the model calls it by: `mcp__<server>__<tool>`. */
  readonly agentName: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

/** Providers take tool names of these characters, at most 64 of them. */
const MAX_NAME = 64;
/** A larger input schema is left out: it would take a good part of every prompt. */
export const MAX_SCHEMA_CHARS = 64 * 1024;
const MAX_DESCRIPTION_CHARS = 4000;
const MAX_PAGES = 50;

/**
 * The model's name of a server's tool: `mcp__<server>__<tool>`, every character outside
 * `A-Z a-z 0-9 _ -` written as `_`; a name longer than 64 characters is cut and ends with a
 * short hash of the whole, so two long names stay apart.
 */
export function agentToolName(server: string, tool: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
  const name = `mcp__${clean(server)}__${clean(tool)}`;
  if (name.length <= MAX_NAME) return name;
  return `${name.slice(0, MAX_NAME - 9)}_${sha256Hex(`${server}\u0000${tool}`).slice(0, 8)}`;
}

/** Every tool a server lists (following its pages), checked; sorted by the model's name. */
export async function readServerTools(server: string, connection: McpConnection, timeoutMs: number): Promise<{ tools: McpToolInfo[]; errors: string[] }> {
  const raw: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await connection.request('tools/list', cursor ? { cursor } : undefined, { timeoutMs });
    if (!Array.isArray(result.tools)) throw new Error('its tool list is not a list');
    raw.push(...result.tools);
    cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
    if (!cursor) break;
  }
  const tools: McpToolInfo[] = [];
  const errors: string[] = [];
  const taken = new Set<string>();
  for (const item of raw) {
    const checked = checkTool(server, item);
    if ('error' in checked) errors.push(checked.error);
    else if (taken.has(checked.tool.agentName))
      errors.push(`tool "${checked.tool.name}" left out: its name is the same as another tool's once written as ${checked.tool.agentName}`);
    else {
      taken.add(checked.tool.agentName);
      tools.push(checked.tool);
    }
  }
  tools.sort((a, b) => (a.agentName < b.agentName ? -1 : a.agentName > b.agentName ? 1 : 0));
  return { tools, errors };
}

function checkTool(server: string, item: unknown): { tool: McpToolInfo } | { error: string } {
  if (!isObject(item) || typeof item.name !== 'string' || !item.name) return { error: 'a tool without a name was left out' };
  const name = item.name;
  const problem = schemaProblem(item.inputSchema);
  if (problem) return { error: `tool "${name}" left out: its input schema ${problem}` };
  const description = typeof item.description === 'string' ? item.description.slice(0, MAX_DESCRIPTION_CHARS) : '';
  return { tool: { server, name, agentName: agentToolName(server, name), description, inputSchema: item.inputSchema as Record<string, unknown> } };
}

/** Why an input schema cannot be offered to a model, or undefined when it can. */
export function schemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema)) return 'is not a JSON object';
  if (schema.type !== 'object') return `has type ${JSON.stringify(schema.type ?? null)}, not "object"`;
  if (schema.properties !== undefined && !isObject(schema.properties)) return 'has "properties" that are not an object';
  if (schema.required !== undefined && (!Array.isArray(schema.required) || !schema.required.every((r) => typeof r === 'string')))
    return 'has "required" that is not a list of names';
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) return `is larger than ${MAX_SCHEMA_CHARS / 1024} KiB`;
  try {
    Compile(schema as never); // what checks the model's arguments later (pi-ai validates with it)
  } catch (err) {
    return `cannot be used (${(err as Error).message})`;
  }
  return undefined;
}
