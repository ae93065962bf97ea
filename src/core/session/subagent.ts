import { Agent, type AgentOptions, type AgentTool, type StreamFn, type ThinkingLevel } from '@mariozechner/pi-agent-core';
import { streamSimple, type Api, type AssistantMessage, type Message, type Model } from '@mariozechner/pi-ai';
import { CacheWatch } from './cacheWatch';
import { newAgentId, newMessageId } from '../ids';
import type { SessionWriter } from '../store/sessionWriter';
import { messageText } from '../format/messageText';
import { callUsage } from './callUsage';
import { describeModelError } from './modelErrors';
import type { SecretRedactor } from './secrets';
import type { SessionSkills } from '../setup/skills/sessionSkills';

/** The system prompt of a subagent. */
const SUBAGENT_PROMPT =
  'You are a subagent of Braid, a coding agent. Do the one task you are given, using the read-only tools to look at the workspace, and end with a complete, self-contained answer: the parent sees only your final message.';

/** What a subagent needs from the session that starts it. */
export interface SubagentContext {
  readonly writer: SessionWriter;
  /** The session's id: the provider's prompt-cache key, as the main agent's calls send it. */
  readonly sessionId: string;
  /** The parent's running turn: the subagent's records carry it. */
  readonly turn: number;
  /** The parent turn's model and thinking, snapshotted at its start (a switch mid-turn applies next turn). */
  readonly model: Model<Api>;
  readonly thinking: string;
  readonly apiKey: (provider: string) => Promise<string | undefined> | string | undefined;
  readonly streamFn?: StreamFn;
  readonly tools: AgentTool[];
  /** The session's skills: listed in the subagent's prompt too, with the `skill` tool and scoped instructions. */
  readonly skills?: Pick<SessionSkills, 'systemPrompt' | 'subagentTools'>;
  /** The session's redactor: a provider error that echoes the key must not reach the subagent's log. */
  readonly secrets: SecretRedactor;
  /** The provider's cache lifetime, as the session's watch has it. */
  readonly cacheLifetimeMs?: number;
  /** SubagentStop hooks: the reason the subagent must go on, if one blocks (`active`: it went on already). */
  readonly stopReason?: (active: boolean) => Promise<string | undefined>;
  /** The session's permission rules and tool hooks, for the subagent's calls too. */
  readonly toolGuards?: Pick<AgentOptions, 'beforeToolCall' | 'afterToolCall'>;
}

/** How many times SubagentStop hooks may send a subagent back to work. */
const MAX_SUBAGENT_CONTINUATIONS = 3;

/**
 * Runs a subagent for the `task` tool: its own Agent and context, the given (read-only) tools, its
 * own log under agents/<agentId>/ whose records carry the parent's turn, its usage in the main log
 * marked with the agent (and its cache breaks, by `agentId`). Returns the final text; Stop (the signal) aborts it with the parent.
 */
export async function runSubagent(ctx: SubagentContext, description: string, prompt: string, signal?: AbortSignal): Promise<{ agentId: string; text: string }> {
  const agentId = newAgentId();
  const log = ctx.writer.openAgentLog(agentId, description);
  await log.append({ t: 'agent', agentId, parentAgentId: 'main', purpose: description }, { durable: true });
  // The subagent's calls are compared with each other (its prompt is its own, not the session's).
  const watch = new CacheWatch(ctx.cacheLifetimeMs);
  const stream = ctx.streamFn ?? streamSimple;
  const context = (): readonly Message[] => child.state.messages as Message[];
  const tools = ctx.skills ? ctx.skills.subagentTools(ctx.tools, context) : ctx.tools;
  const systemPrompt = ctx.skills ? ctx.skills.systemPrompt(SUBAGENT_PROMPT) : SUBAGENT_PROMPT;
  const child: Agent = new Agent({
    initialState: { model: ctx.model, systemPrompt, thinkingLevel: ctx.thinking as ThinkingLevel, tools },
    getApiKey: (provider) => ctx.apiKey(provider),
    streamFn: (model, context, options) => {
      watch.sending(model, context, ctx.thinking);
      return stream(model, context, options);
    },
    // The session's cache key (pi-ai passes it on: OpenAI's prompt_cache_key, session affinity headers).
    sessionId: ctx.sessionId,
    ...ctx.toolGuards,
  });
  let startedAt = Date.now();
  child.subscribe(async (event) => {
    if (event.type === 'message_start' && event.message.role === 'assistant') startedAt = Date.now();
    if (event.type !== 'message_end') return;
    const message = ctx.secrets.redactObject(event.message as Message);
    const id = newMessageId();
    await log.append({ t: 'message', turn: ctx.turn, id, message });
    if (message.role === 'assistant') {
      await ctx.writer.appendUsage(callUsage(message, id, startedAt, `subagent:${agentId}`));
      const note = message.stopReason === 'error' || message.stopReason === 'aborted' ? undefined : watch.answered(message.usage, ctx.model);
      if (note) await ctx.writer.append({ t: 'cache_break', turn: ctx.turn, messageId: id, agentId, ...note });
    }
  });
  const abort = () => child.abort();
  signal?.addEventListener('abort', abort, { once: true });
  try {
    await child.prompt({ role: 'user', content: prompt, timestamp: Date.now() });
    for (let i = 0; ctx.stopReason && i < MAX_SUBAGENT_CONTINUATIONS && !signal?.aborted && finishedCleanly(child); i++) {
      const reason = await ctx.stopReason(i > 0);
      if (reason === undefined || signal?.aborted) break;
      await child.prompt({ role: 'user', content: `A SubagentStop hook asks you to go on: ${reason}`, timestamp: Date.now() });
    }
  } finally {
    signal?.removeEventListener('abort', abort);
    await log.close();
  }
  const last = [...child.state.messages].reverse().find((m): m is AssistantMessage => (m as Message).role === 'assistant');
  if (!last || last.stopReason === 'aborted') throw new Error(`the subagent "${description}" was stopped`);
  if (last.stopReason === 'error') throw new Error(`the subagent "${description}" failed: ${describeModelError(last.errorMessage)}`);
  return { agentId, text: messageText(last) };
}

function finishedCleanly(agent: Agent): boolean {
  const last = (agent.state.messages as Message[]).at(-1);
  return last?.role === 'assistant' && last.stopReason !== 'error' && last.stopReason !== 'aborted';
}
