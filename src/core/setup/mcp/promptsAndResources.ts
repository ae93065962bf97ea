import { isObject } from '../settingsFiles';
import type { McpHub } from './hub';
import { agentToolName } from './serverTools';
import { capText } from '../../tools/context';

// A server's prompts (slash commands `/mcp__<server>__<prompt> args`) and resources (attachable
// with `@`). Lists and reads are bounded like tool results; a server that cannot answer says why.

/** One prompt of a server, as a slash command. */
export interface McpPromptInfo {
  readonly server: string;
  readonly name: string;
  /** The slash command's name: `mcp__<server>__<prompt>`. */
  readonly command: string;
  readonly description: string;
  readonly arguments: ReadonlyArray<{ readonly name: string; readonly description?: string; readonly required: boolean }>;
}

/** One resource of a server. */
export interface McpResourceInfo {
  readonly server: string;
  readonly uri: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
}

const LIST_TIMEOUT_MS = 10_000;
const MAX_PAGES = 20;

/** Every prompt of the running servers (each server started if it may run), sorted by command. */
export async function listMcpPrompts(hub: McpHub): Promise<McpPromptInfo[]> {
  const out: McpPromptInfo[] = [];
  for (const { server, item: p } of await eachServersItems(hub, 'prompts/list', 'prompts')) {
    if (typeof p.name !== 'string') continue;
    const args = Array.isArray(p.arguments) ? p.arguments.filter(isObject) : [];
    out.push({
      server,
      name: p.name,
      command: agentToolName(server, p.name),
      description: typeof p.description === 'string' ? p.description : '',
      arguments: args.map((a) => ({
        name: String(a.name),
        ...(typeof a.description === 'string' ? { description: a.description } : {}),
        required: a.required === true,
      })),
    });
  }
  return out.sort((a, b) => (a.command < b.command ? -1 : a.command > b.command ? 1 : 0));
}

/** A prompt's messages as one text (what the user's slash command sends), bounded. */
export async function getMcpPrompt(hub: McpHub, server: string, name: string, args: Record<string, string>): Promise<string> {
  const result = await hub.request(server, 'prompts/get', { name, arguments: args }, { timeoutMs: LIST_TIMEOUT_MS });
  const messages = Array.isArray(result.messages) ? result.messages.filter(isObject) : [];
  const texts = messages.map((m) => contentText(m.content)).filter((t) => t);
  return capText(texts.join('\n\n'));
}

/**
 * `/mcp__<server>__<prompt> args` as the text to send: the prompt's messages, its arguments filled
 * in order from the words after the command (the last takes the rest of the line). Undefined when
 * the text names no prompt of a running server; throws when the prompt exists but cannot be had.
 */
export async function resolveMcpPrompt(hub: McpHub, text: string): Promise<string | undefined> {
  const match = /^\/(mcp__\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const prompt = (await listMcpPrompts(hub)).find((p) => p.command === match[1]);
  if (!prompt) return undefined;
  const words = (match[2] ?? '').trim();
  const parts = words ? words.split(/\s+/) : [];
  const args: Record<string, string> = {};
  prompt.arguments.forEach((a, i) => {
    const last = i === prompt.arguments.length - 1;
    const value = last ? parts.slice(i).join(' ') : parts[i];
    if (value) args[a.name] = value;
  });
  const missing = prompt.arguments.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
  if (missing.length)
    throw new Error(`/${prompt.command} needs ${missing.join(', ')} (${prompt.arguments.map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ')})`);
  return getMcpPrompt(hub, prompt.server, prompt.name, args);
}

/** Every resource of the running servers, for `@` attachments (sorted by server, then URI). */
export async function listMcpResources(hub: McpHub): Promise<McpResourceInfo[]> {
  const out: McpResourceInfo[] = [];
  for (const { server, item: r } of await eachServersItems(hub, 'resources/list', 'resources')) {
    if (typeof r.uri !== 'string') continue;
    out.push({
      server,
      uri: r.uri,
      name: typeof r.name === 'string' ? r.name : r.uri,
      ...(typeof r.description === 'string' ? { description: r.description } : {}),
      ...(typeof r.mimeType === 'string' ? { mimeType: r.mimeType } : {}),
    });
  }
  return out.sort((a, b) => (a.server !== b.server ? (a.server < b.server ? -1 : 1) : a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}

/** A resource's text (binary contents named, not shown), bounded, for an attachment. */
export async function readMcpResource(hub: McpHub, server: string, uri: string): Promise<string> {
  const result = await hub.request(server, 'resources/read', { uri }, { timeoutMs: LIST_TIMEOUT_MS });
  const contents = Array.isArray(result.contents) ? result.contents.filter(isObject) : [];
  return capText(
    contents
      .map((c) => (typeof c.text === 'string' ? c.text : `[binary content of ${String(c.uri ?? uri)} (${String(c.mimeType ?? 'unknown type')}) not shown]`))
      .join('\n'),
  );
}

/** The items every running server lists (servers started first; one that cannot list gives none). */
async function eachServersItems(hub: McpHub, method: string, key: string): Promise<Array<{ server: string; item: Record<string, unknown> }>> {
  await hub.startAll();
  const out: Array<{ server: string; item: Record<string, unknown> }> = [];
  for (const { server } of hub.running()) {
    const items = await listAll(hub, server, method, key).catch(() => []);
    for (const item of items) if (isObject(item)) out.push({ server, item });
  }
  return out;
}

async function listAll(hub: McpHub, server: string, method: string, key: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await hub.request(server, method, cursor ? { cursor } : undefined, { timeoutMs: LIST_TIMEOUT_MS });
    if (Array.isArray(result[key])) out.push(...(result[key] as unknown[]));
    cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
    if (!cursor) break;
  }
  return out;
}

function contentText(content: unknown): string {
  if (!isObject(content)) return '';
  if (content.type === 'text' && typeof content.text === 'string') return content.text;
  if (content.type === 'resource' && isObject(content.resource) && typeof content.resource.text === 'string') return content.resource.text;
  return `[${String(content.type)} content not shown]`;
}
