import fs from 'node:fs';
import {
  calculateCost,
  getModels,
  type Api,
  type AssistantMessage,
  type Model,
  type ImageContent,
  type KnownProvider,
  type StopReason,
  type TextContent,
  type ThinkingContent,
  type ToolCall,
  type ToolResultMessage,
  type UserMessage,
} from '@mariozechner/pi-ai';

/** Tokens of one model call as a source records them (input without the cached part). */
export interface CallTokens {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

export type AnswerBlock = TextContent | ThinkingContent | ToolCall;
export type PromptBlock = TextContent | ImageContent;

const nonNegative = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.round(x) : 0);

/** Tokens read leniently: what is not a count is 0. */
export function callTokens(input: unknown, output: unknown, cacheRead: unknown, cacheWrite: unknown): CallTokens {
  return { input: nonNegative(input), output: nonNegative(output), cacheRead: nonNegative(cacheRead), cacheWrite: nonNegative(cacheWrite) };
}

const catalogue = new Map<string, Model<Api> | null>();

/** pi-ai's entry for a model, looked up once per provider and model (an import prices every answer). */
function catalogued(provider: string, model: string): Model<Api> | null {
  const key = `${provider}\n${model}`;
  let known = catalogue.get(key);
  if (known === undefined) {
    try {
      known = getModels(provider as KnownProvider).find((m) => m.id === model) ?? null;
    } catch {
      known = null; // a provider pi-ai does not list
    }
    catalogue.set(key, known);
  }
  return known;
}

/** The cost of a call by pi-ai's price list when it knows the model (sources rarely record a cost); 0 otherwise. */
function costOf(provider: string, model: string, tokens: CallTokens, recorded: number | undefined): AssistantMessage['usage']['cost'] {
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  if (recorded !== undefined && recorded > 0) return { ...zero, total: recorded };
  const known = catalogued(provider, model);
  if (!known) return zero;
  return calculateCost(known, { ...tokens, totalTokens: 0, cost: { ...zero } });
}

export function assistantMessage(options: {
  provider: string;
  api: string;
  model: string;
  content: AnswerBlock[];
  tokens: CallTokens;
  stopReason: StopReason;
  ts: number;
  cost?: number;
  errorMessage?: string;
}): AssistantMessage {
  const { tokens } = options;
  return {
    role: 'assistant',
    content: options.content,
    api: options.api,
    provider: options.provider,
    model: options.model,
    usage: {
      ...tokens,
      totalTokens: tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite,
      cost: costOf(options.provider, options.model, tokens, options.cost),
    },
    stopReason: options.stopReason,
    ...(options.errorMessage ? { errorMessage: options.errorMessage } : {}),
    timestamp: options.ts,
  };
}

export function userMessage(content: string | PromptBlock[], ts: number): UserMessage {
  return { role: 'user', content, timestamp: ts };
}

export function toolResult(toolCallId: string, toolName: string, content: PromptBlock[], isError: boolean, ts: number, details?: unknown): ToolResultMessage {
  return { role: 'toolResult', toolCallId, toolName, content, isError, timestamp: ts, ...(details === undefined ? {} : { details }) };
}

/** A source's clock may run a little ahead of this machine's: a time up to this far ahead is taken as now. */
const CLOCK_SKEW_MS = 24 * 3600_000;

/**
 * A time from an ISO string or a number (seconds or milliseconds), when it is plausible: after
 * 1970 and not in the future (a few hours' clock skew is taken as now). `fallback` otherwise: a
 * far-future or negative time in a source file is no time, as Braid's own records never hold one.
 */
export function timeOf(value: unknown, fallback: number): number {
  let ms: number = NaN;
  if (typeof value === 'number') ms = value < 1e11 ? value * 1000 : value;
  else if (typeof value === 'string') ms = Date.parse(value);
  const now = Date.now();
  if (!Number.isFinite(ms) || ms <= 0 || ms > now + CLOCK_SKEW_MS) return fallback;
  return Math.min(Math.round(ms), now);
}

/** A source file's modification time, the stand-in for a session whose records hold no time (never later than now). */
export function fileTime(file: string): number {
  try {
    return Math.floor(Math.min(fs.lstatSync(file).mtimeMs, Date.now()));
  } catch {
    return Date.now();
  }
}

/** An image block from a base64 source; text saying what it was when the data is not there. */
export function imageBlock(mimeType: unknown, data: unknown): PromptBlock {
  if (typeof data === 'string' && data.length > 0 && typeof mimeType === 'string') return { type: 'image', mimeType, data };
  return { type: 'text', text: '[an image the source did not keep]' };
}

export const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
export const text = (x: unknown): string => (typeof x === 'string' ? x : '');
