/** Token usage the server reports for a reply (OpenAI's way: `prompt` counts the cached tokens too). */
export interface ScriptedUsage {
  readonly prompt: number;
  readonly completion: number;
  /** Prompt tokens read from the cache. */
  readonly cached?: number;
  /** Prompt tokens written to the cache (only Anthropic's API reports them). */
  readonly cacheWrite?: number;
}

/**
 * One tool call the model "makes". `arguments` is the JSON text, streamed in pieces. A `custom`
 * call (the Responses API's freeform tools, such as Codex's apply_patch) carries raw text instead.
 */
export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  readonly custom?: boolean;
  /** The Responses API's tool namespace the function belongs to (Codex's `multi_agent_v1`). */
  readonly namespace?: string;
}

/** A reply that answers: text or tool calls, each optionally after some thinking. */
export type AnswerReply =
  | {
      readonly kind: 'text';
      readonly chunks: readonly string[];
      readonly thinking?: string;
      readonly usage?: ScriptedUsage;
      readonly chunkDelayMs?: number;
    }
  | {
      readonly kind: 'toolCalls';
      readonly text?: string;
      readonly thinking?: string;
      readonly calls: readonly ScriptedToolCall[];
      readonly usage?: ScriptedUsage;
    };

/** What one streamed answer knows before its first byte. */
export interface StreamMeta {
  readonly id: string;
  readonly model: string;
  /** Unix seconds. */
  readonly created: number;
  /** The usage the answer reports at its end (Anthropic's `message_start` tells the input side first). */
  readonly usage?: ScriptedUsage;
}

/**
 * One streamed answer in an API's wire format, as SSE text to write. `begin` and `text` are all a
 * stalled or broken stream sends; `finish` closes the text and sends the calls, the stop and the usage.
 */
export interface WireStream {
  begin(thinking: string | undefined): string;
  text(delta: string): string;
  finish(reply: AnswerReply): string;
}

/** An API the scripted server speaks: the route, its errors, whole answers and streams. */
export interface WireFormat {
  readonly path: string;
  errorBody(status: number, message: string): object;
  whole(meta: StreamMeta, reply: AnswerReply): object;
  stream(meta: StreamMeta): WireStream;
}

/** One server-sent event; `event` names it where the API does (the OpenAI chat API does not). */
export function sse(data: object, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

/** The text in two pieces (so a client must join streamed deltas). */
export function splitInTwo(text: string): string[] {
  const mid = Math.ceil(text.length / 2);
  return text.length < 2 ? [text] : [text.slice(0, mid), text.slice(mid)];
}

/** The reply's answer text, whole. */
export function answerText(reply: AnswerReply): string {
  return reply.kind === 'toolCalls' ? (reply.text ?? '') : reply.chunks.join('');
}
