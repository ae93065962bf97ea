import type { StreamFn } from '@mariozechner/pi-agent-core';
import { streamSimple, type Api, type AssistantMessage, type Message, type Model, type UserMessage } from '@mariozechner/pi-ai';
import type { History } from '../wire/replay';
import type { MemoryFact } from '../wire/records';
import { memoryForModel } from './memory';

/** When and how much to compact (settings `braid.compaction.*`). */
export interface CompactionSettings {
  /** Compact when the next request would exceed this share of the model's context window. */
  readonly threshold: number;
  /** About this many tokens of the newest messages stay verbatim. */
  readonly keepTokens: number;
}

export const DEFAULT_COMPACTION: CompactionSettings = { threshold: 0.8, keepTokens: 20_000 };

/** Characters per token of the estimate (a common rule of thumb for English and code). */
export const CHARS_PER_TOKEN = 4;
/** Longest tool result the summary call sees of each call (characters). */
const RESULT_CHARS = 2_000;

function messageChars(m: Message): number {
  if (typeof m.content === 'string') return m.content.length;
  let n = 0;
  for (const b of m.content) {
    if (b.type === 'text') n += b.text.length;
    else if (b.type === 'thinking') n += b.thinking.length;
    else if (b.type === 'toolCall') n += b.name.length + JSON.stringify(b.arguments ?? {}).length;
    else n += 1_000; // an image
  }
  return n;
}

/** A rough token count of messages. */
export function estimateTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const m of messages) chars += messageChars(m) + 16;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * The newest answer's count of its request (the provider's own total: prompt, cache and output,
 * as pi-ai reports it) and how many messages came after it; undefined when that answer has no
 * count or `counts` says its count no longer applies. Errored and stopped answers are passed over.
 */
export function countedRequest(messages: readonly Message[], counts: (m: Message) => boolean = () => true): { tokens: number; after: number } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || m.stopReason === 'error' || m.stopReason === 'aborted') continue;
    const tokens = m.usage.totalTokens || m.usage.input + m.usage.cacheRead + m.usage.output;
    return tokens > 0 && counts(m) ? { tokens, after: i + 1 } : undefined;
  }
  return undefined;
}

/**
 * The size of the next request: the last answer's reported usage (what the provider counted)
 * plus an estimate of what came after it; an estimate of everything when no usage is known.
 */
export function contextTokens(messages: readonly Message[], systemPrompt: string): number {
  const counted = countedRequest(messages);
  if (counted) return counted.tokens + estimateTokens(messages.slice(counted.after));
  return estimateTokens(messages) + Math.ceil(systemPrompt.length / CHARS_PER_TOKEN);
}

/**
 * Where the verbatim tail starts: the first kept message, so that about `keepTokens` of the
 * newest messages stay. The cut is never before a tool result (a call and its result stay on one
 * side), and never before an errored or aborted answer. Undefined when nothing would be
 * summarized.
 */
export function keepBoundary(messages: readonly Message[], keepTokens: number): number | undefined {
  let kept = 0;
  let i = messages.length;
  while (i > 0) {
    const size = estimateTokens([messages[i - 1]!]);
    if (kept + size > keepTokens) break;
    kept += size;
    i--;
  }
  // Move the cut forward to a message that can start a context.
  while (i < messages.length && messages[i]!.role === 'toolResult') i++;
  if (i >= messages.length) {
    // The newest exchange alone is larger than the budget: keep from its last user message.
    i = messages.length - 1;
    while (i > 0 && messages[i]!.role !== 'user') i--;
  }
  return i > 0 ? i : undefined;
}

/** The message the model gets in place of what a compaction summarized, with the session memory after the summary when there is one. */
export function summaryMessage(summary: string, timestamp = Date.now(), memory: readonly MemoryFact[] = []): UserMessage {
  const remembered = memory.length > 0 ? `\n\n${memoryForModel(memory)}` : '';
  return {
    role: 'user',
    content: [
      {
        type: 'text',
        text: `<system-reminder>\nThe earlier part of this session was summarized to fit the context window. Summary:\n\n${summary}${remembered}\n</system-reminder>`,
      },
    ],
    timestamp,
  };
}

/**
 * The model's context of a history: with a compaction, the latest one's summary (and the session
 * memory) and then the effective messages from its first kept message on; otherwise every
 * effective message.
 */
export function contextMessages(history: Pick<History, 'messages' | 'compactions'> & { readonly memory?: History['memory'] }): Message[] {
  const latest = history.compactions.at(-1);
  const messages = history.messages.map((r) => r.message);
  if (!latest) return messages;
  const from = history.messages.findIndex((r) => r.id === latest.firstKeptMessageId);
  if (from < 0) return messages; // the kept message is gone (should not happen): keep everything
  return [summaryMessage(latest.summary, history.messages[from]!.message.timestamp, history.memory?.facts), ...messages.slice(from)];
}

const SUMMARY_PROMPT = [
  'You summarize the earlier part of a conversation between a user and Braid, a coding agent, so the agent can continue the work with only your summary and the newest messages.',
  "Keep: the user's goals and constraints, decisions made and why, files read or changed (with paths), commands run and what they showed, errors met and how they were solved, and what remains to do.",
  'Be specific (names, paths, numbers) and concise. Write the summary only.',
].join(' ');

/** The older messages as plain text for the summary call. */
export function transcriptText(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === 'toolResult') {
      const text = m.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
      lines.push(`[result of ${m.toolName}${m.isError ? ', error' : ''}]\n${text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS)}…` : text}`);
      continue;
    }
    if (typeof m.content === 'string') {
      lines.push(`${m.role}: ${m.content}`);
      continue;
    }
    const parts: string[] = [];
    for (const b of m.content) {
      if (b.type === 'text') parts.push(b.text);
      else if (b.type === 'toolCall') parts.push(`[calls ${b.name} ${JSON.stringify(b.arguments ?? {})}]`);
    }
    if (parts.length) lines.push(`${m.role}: ${parts.join('\n')}`);
  }
  return lines.join('\n\n');
}

/** Asks the model for the summary of `older` (one call, no tools). Throws when it fails or is stopped. */
export async function summarize(options: {
  model: Model<Api>;
  older: readonly Message[];
  focus?: string;
  apiKey?: string;
  streamFn?: StreamFn;
  signal?: AbortSignal;
}): Promise<AssistantMessage> {
  const focus = options.focus?.trim() ? `\n\nThe user asks the summary to focus on: ${options.focus.trim()}` : '';
  const request: Message = {
    role: 'user',
    content: [{ type: 'text', text: `<conversation>\n${transcriptText(options.older)}\n</conversation>\n\nSummarize the conversation above.${focus}` }],
    timestamp: Date.now(),
  };
  const stream = await (options.streamFn ?? streamSimple)(
    options.model,
    { systemPrompt: SUMMARY_PROMPT, messages: [request] },
    {
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  const message = await stream.result();
  if (message.stopReason === 'aborted') throw new CompactionCancelled(message);
  if (message.stopReason === 'error') throw new SummaryFailed(message.errorMessage ?? 'the summary call failed', message);
  if (!message.content.some((b) => b.type === 'text' && b.text.trim())) throw new SummaryFailed('the model returned an empty summary', message);
  return message;
}

/** The summary call answered, but not with a summary; `answer` still says what the call cost. */
export class SummaryFailed extends Error {
  constructor(
    message: string,
    readonly answer: AssistantMessage,
  ) {
    super(message);
  }
}

/** The user stopped a compaction; `answer` is what the call returned before it stopped, if it had begun. */
export class CompactionCancelled extends Error {
  constructor(readonly answer?: AssistantMessage) {
    super('Compaction was stopped; the session is unchanged.');
  }
}
