// How full the model's context is, for the context meter: the size of the next request, as
// compaction counts it, and its parts. The provider counts the last request; what it does not
// count (the parts, and what came after its answer) is estimated from characters.
import type { Message } from '@mariozechner/pi-ai';
import { CHARS_PER_TOKEN, countedRequest, estimateTokens } from './compaction';

/**
 * The next request's size in tokens and its parts, for the context meter (the window is the
 * model's); the webview protocol (src/protocol/frames.ts) sends it to the page as it is.
 */
export interface ContextInfo {
  /** Tokens the next request would send: the provider's count of the last one plus an estimate of what came after. */
  readonly used: number;
  /** Whether `used` starts from the provider's count (false: all of it is an estimate). */
  readonly measured: boolean;
  /** The system prompt and the tools' definitions (estimated). */
  readonly system: number;
  /** Files and selections the user attached (estimated). */
  readonly attachments: number;
  /** The rest: the conversation since the latest compaction, its summary included. */
  readonly conversation: number;
  /** The share of the window at which the session compacts. */
  readonly threshold: number;
}

/** The session's name for `ContextInfo`: the next request's size in tokens and what it is made of. */
export type ContextUse = ContextInfo;

/** What a tool's definition adds to every request: its name, description and parameter schema. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
}

/** The estimated tokens of the system prompt and tool definitions every request carries. */
export function fixedTokens(systemPrompt: string, tools: readonly ToolDefinition[]): number {
  const toolChars = JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))).length;
  return Math.ceil((systemPrompt.length + toolChars) / CHARS_PER_TOKEN);
}

/**
 * The context use of a request of `messages` after `fixed` tokens of system prompt and tools:
 * the newest answer's count of its request plus an estimate of the messages after it, or an
 * estimate of everything when that answer has no count or `counts` says its count is out of date
 * (a compaction replaced what it counted).
 */
export function contextUse(messages: readonly Message[], fixed: number, threshold: number, counts: (m: Message) => boolean = () => true): ContextUse {
  const counted = countedRequest(messages, counts);
  const used = counted ? Math.max(counted.tokens + estimateTokens(messages.slice(counted.after)), fixed) : estimateTokens(messages) + fixed;
  const attachments = Math.min(attachedTokens(messages), used - fixed);
  return { used, measured: counted !== undefined, system: fixed, attachments, conversation: Math.max(0, used - fixed - attachments), threshold };
}

/** The estimated tokens of what the user attached to the prompts among `messages` (their `<attachment>` blocks). */
function attachedTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const m of messages) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'text' && b.text.startsWith('<attachment ')) chars += b.text.length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
