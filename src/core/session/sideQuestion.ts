import type { AgentTool, StreamFn } from '@mariozechner/pi-agent-core';
import { streamSimple, type Api, type AssistantMessage, type Message, type Model } from '@mariozechner/pi-ai';

/**
 * The context of a side question (/btw, docs/reference.md, Turns and prompts): the history with assistant messages cut to
 * their text (tool calls and thinking dropped), tool results dropped, and the question last.
 */
export function sideQuestionContext(history: readonly Message[], question: string): Message[] {
  const out: Message[] = [];
  for (const m of history) {
    if (m.role === 'toolResult') continue;
    if (m.role === 'assistant') {
      if (m.stopReason === 'error' || m.stopReason === 'aborted') continue;
      const text = m.content.filter((b) => b.type === 'text');
      if (text.length > 0) out.push({ ...m, content: text, stopReason: 'stop' });
      continue;
    }
    out.push(m);
  }
  out.push({ role: 'user', content: question, timestamp: Date.now() });
  return out;
}

/** What one side call (a side question, a next-prompt suggestion) is sent with. */
export interface SideCallOptions {
  readonly model: Model<Api>;
  readonly systemPrompt: string;
  /** The whole context, the request last. */
  readonly messages: readonly Message[];
  /** Passed so the model knows them (and the request's tool list matches the conversation's); never executed. */
  readonly tools: readonly AgentTool[];
  readonly apiKey?: string;
  readonly streamFn?: StreamFn;
  readonly signal?: AbortSignal;
  /** The session's id: the provider's cache key, as the turns pass it (the call reuses their cached prefix). */
  readonly sessionId?: string;
  /** The longest answer asked for; the model's own limit when absent. */
  readonly maxTokens?: number;
  /** What the error says when the provider failed without a reason. */
  readonly failure: string;
}

/**
 * One model call beside the conversation: thinking off, tools described but never run, nothing
 * persisted. Returns the answer's text and the message (its usage is the caller's to record).
 * Throws when the provider answered with an error.
 */
export async function sideCall(options: SideCallOptions): Promise<{ text: string; message: AssistantMessage }> {
  const context = { systemPrompt: options.systemPrompt, messages: [...options.messages], tools: [...options.tools] };
  const stream = await (options.streamFn ?? streamSimple)(options.model, context, {
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
  });
  const message = await stream.result();
  if (message.stopReason === 'error') throw new Error(message.errorMessage ?? options.failure);
  const text = message.content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('');
  return { text, message };
}

/**
 * Asks the model a side question over the current history: one side call over the history cut to
 * text (sideQuestionContext), the question last. Returns the answer's text.
 */
export async function askSideQuestion(options: {
  model: Model<Api>;
  systemPrompt: string;
  history: readonly Message[];
  tools: readonly AgentTool[];
  question: string;
  apiKey?: string;
  streamFn?: StreamFn;
  signal?: AbortSignal;
  sessionId?: string;
}): Promise<{ text: string; message: AssistantMessage }> {
  const { history, question, ...rest } = options;
  return sideCall({ ...rest, messages: sideQuestionContext(history, question), failure: 'The side question failed.' });
}
