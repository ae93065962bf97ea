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

/**
 * Asks the model a side question over the current history: one call, thinking off, tools passed
 * so the model knows them but never executed, nothing persisted. Returns the answer's text.
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
}): Promise<{ text: string; message: AssistantMessage }> {
  const context = { systemPrompt: options.systemPrompt, messages: sideQuestionContext(options.history, options.question), tools: [...options.tools] };
  const stream = await (options.streamFn ?? streamSimple)(options.model, context, {
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const message = await stream.result();
  if (message.stopReason === 'error') throw new Error(message.errorMessage ?? 'The side question failed.');
  const text = message.content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('');
  return { text, message };
}
