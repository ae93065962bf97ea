import type { Attachment } from '../../format/attachment';
import { errorMessage } from '../../errors';
import type { McpHub } from './hub';
import { readMcpResource, resolveMcpPrompt } from './promptsAndResources';

// What a prompt typed in the chat or given to `braid exec` asks of the MCP servers: a server's
// prompt (`/mcp__<server>__<prompt> args`) and resources written as Claude Code writes them
// (`@<server>:<uri>`). The chat and the CLI both send prompts through here.

/** `@server:scheme:…` at the start of the text or after a space: the URI must have a scheme, so `@me:` in prose is no mention. */
const RESOURCE_MENTION = /(?:^|\s)@([\w.-]+):([a-zA-Z][\w+.-]*:\S+)/g;

/** One `@server:uri` written in a prompt. */
export interface ResourceMention {
  readonly server: string;
  readonly uri: string;
}

/** The `@server:uri` mentions of a text, in order, each once. */
export function resourceMentions(text: string): ResourceMention[] {
  const seen = new Set<string>();
  const out: ResourceMention[] = [];
  for (const m of text.matchAll(RESOURCE_MENTION)) {
    const mention = { server: m[1]!, uri: m[2]! };
    const key = mentionText(mention);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(mention);
  }
  return out;
}

/** How a resource is written in a prompt (and shown under it): `server:uri`. */
export function mentionText(mention: ResourceMention): string {
  return `${mention.server}:${mention.uri}`;
}

/** Reads `server:uri` as a mention; undefined when it is not one. */
export function parseMention(text: string): ResourceMention | undefined {
  const m = /^([\w.-]+):([a-zA-Z][\w+.-]*:\S+)$/.exec(text);
  return m ? { server: m[1]!, uri: m[2]! } : undefined;
}

/**
 * A server's resource as an attachment (its text bounded as every attachment's is, when sent).
 * Throws a sentence naming the resource when the server is unknown, may not run, or cannot read it.
 */
export async function resourceAttachment(hub: McpHub, mention: ResourceMention, label?: string): Promise<Attachment> {
  try {
    const text = await readMcpResource(hub, mention.server, mention.uri);
    return { kind: 'mcpResource', label: label ?? mention.uri, uri: mentionText(mention), text };
  } catch (err) {
    throw new Error(`@${mentionText(mention)} could not be attached: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * The resources a prompt's text mentions (`@server:uri` naming a server of the setup; any other
 * `@word:scheme:…` is the user's text), read now; the first that cannot be read throws.
 */
export async function mentionedResources(hub: McpHub, text: string): Promise<Attachment[]> {
  const servers = new Set(hub.statuses().map((s) => s.name));
  const out: Attachment[] = [];
  for (const mention of resourceMentions(text)) if (servers.has(mention.server)) out.push(await resourceAttachment(hub, mention));
  return out;
}

/**
 * The text a `/mcp__<server>__<prompt> args` line sends: the line as typed, then the server's
 * prompt, so the transcript shows what the user typed (as a custom command's expansion does).
 * Undefined when the line names no prompt of a server that runs; throws when the prompt cannot be had.
 */
export async function mcpPromptToSend(hub: McpHub, typed: string): Promise<string | undefined> {
  const prompt = await resolveMcpPrompt(hub, typed);
  return prompt === undefined ? undefined : `${typed.trim()}\n\n${prompt}`;
}
