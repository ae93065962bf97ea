import type { StreamFn } from '@mariozechner/pi-agent-core';
import { streamSimple, type Api, type AssistantMessage, type Message, type Model } from '@mariozechner/pi-ai';
import type { MemoryFact } from '../wire/records';
import { transcriptText } from './compaction';
import { MEMORY_KINDS, memoryText, parseMemoryText } from './memory';

const MEMORY_PROMPT = [
  'You keep the memory of a coding session between a user and Braid, a coding agent: a short list of durable facts the agent must not forget when older messages leave its context.',
  `Kinds: decision (what was decided and why), constraint (what must or must not be done), file (a path that matters and what it is), preference (how the user likes things done), note (anything else durable).`,
  'Keep facts that stay true; leave out passing steps, tool output and anything already done and no longer relevant. Keep the earlier facts unless the conversation changed them.',
  `Answer with the whole list only, one fact a line, each line "- kind: text" with kind one of ${MEMORY_KINDS.join(', ')}; at most 30 lines, each short and specific (names, paths, numbers).`,
].join(' ');

/** The extraction call answered, but not with a memory; `answer` still says what the call cost. */
export class MemoryExtractionFailed extends Error {
  constructor(
    message: string,
    readonly answer?: AssistantMessage,
  ) {
    super(message);
  }
}

/**
 * Asks the model for the session memory (one call, no tools): the earlier facts and the
 * conversation as text, the whole new list back. Throws MemoryExtractionFailed when the call
 * fails, is stopped, or answers with no fact (its answer, if any, carries the usage).
 */
export async function extractMemory(options: {
  model: Model<Api>;
  messages: readonly Message[];
  previous: readonly MemoryFact[];
  apiKey?: string;
  streamFn?: StreamFn;
  signal?: AbortSignal;
}): Promise<{ facts: MemoryFact[]; answer: AssistantMessage }> {
  const earlier = options.previous.length > 0 ? memoryText(options.previous) : '(none yet)';
  const request: Message = {
    role: 'user',
    content: [
      {
        type: 'text',
        text: `<memory>\n${earlier}\n</memory>\n\n<conversation>\n${transcriptText(options.messages)}\n</conversation>\n\nWrite the session memory as of the end of the conversation above.`,
      },
    ],
    timestamp: Date.now(),
  };
  let answer: AssistantMessage;
  try {
    const stream = await (options.streamFn ?? streamSimple)(
      options.model,
      { systemPrompt: MEMORY_PROMPT, messages: [request] },
      { ...(options.apiKey ? { apiKey: options.apiKey } : {}), ...(options.signal ? { signal: options.signal } : {}) },
    );
    answer = await stream.result();
  } catch (err) {
    throw new MemoryExtractionFailed(err instanceof Error ? err.message : String(err));
  }
  if (answer.stopReason === 'aborted') throw new MemoryExtractionFailed('the memory update was stopped', answer);
  if (answer.stopReason === 'error') throw new MemoryExtractionFailed(answer.errorMessage ?? 'the memory call failed', answer);
  const text = answer.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  let facts: MemoryFact[];
  try {
    facts = parseMemoryText(text);
  } catch (err) {
    throw new MemoryExtractionFailed(`the model's memory could not be read (${err instanceof Error ? err.message : String(err)})`, answer);
  }
  if (facts.length === 0) throw new MemoryExtractionFailed('the model returned no fact', answer);
  return { facts, answer };
}
