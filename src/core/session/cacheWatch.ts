import type { Api, Context, Message, Model, Tool, Usage } from '@mariozechner/pi-ai';
import { sha256Hex } from '../hash';
import { excerpt } from '../format/textStart';
import type { CacheBreakCause, CacheBreakRecord } from '../wire/records';

/** How long providers keep a prompt cache without a hit, by default (Anthropic's and OpenAI's short retention). */
export const DEFAULT_CACHE_LIFETIME_MS = 5 * 60_000;

/** A drop counts as a break past this share of what the call before had cached… */
export const CACHE_BREAK_SHARE = 0.2;
/** …and this many tokens (below a provider's smallest cacheable prompt, a drop is noise). */
export const CACHE_BREAK_MIN_TOKENS = 1024;

/** What a call sent, as far as a provider's prompt cache depends on it. */
interface CallShape {
  readonly provider: string;
  readonly model: string;
  readonly thinking: string;
  readonly systemPrompt: string;
  /** Each tool's name and the hash of its definition, in the order sent. */
  readonly tools: readonly (readonly [string, string])[];
  /** Each message's hash, in order. */
  readonly messages: readonly string[];
  /** Each message's length as sent (characters), in order: how much of the prompt a common beginning is. */
  readonly sizes: readonly number[];
  readonly at: number;
}

/** A call as it answered: its shape and what the cache held for it. */
interface Answered {
  readonly shape: CallShape;
  /** Tokens of its prompt the provider had cached once it answered (read, or written for later). */
  readonly cached: number;
  /** Tokens of its prompt (0 when not known). */
  readonly sent: number;
}

/** What the log says of a session's last call: the shape the next call is compared with. */
export interface LastCall extends Omit<CallShape, 'messages' | 'sizes'> {
  readonly cached: number;
  readonly sent: number;
}

/** Each tool's name and the hash of its definition, in the order given: what a prompt's tools are to its cache. */
export function toolShape(tools: readonly Pick<Tool, 'name' | 'description' | 'parameters'>[]): [string, string][] {
  return tools.map((t) => [t.name, sha256Hex(JSON.stringify([t.description, t.parameters]))]);
}

export type CacheBreakNote = Omit<CacheBreakRecord, 'v' | 'ts' | 't' | 'turn' | 'messageId'>;

/**
 * Watches one agent's model calls (the main agent's: side calls do not pass through it) and
 * names the likely cause when a call reads far less from the prompt cache than the one before:
 * the model or thinking changed, the system prompt or the tools changed, the messages before the
 * cache point were rewritten (a compaction, a rewind, something else), or the time since the last
 * call outlived the provider's cache. What a rewind took out of the prompt is not counted as lost.
 * After the session is opened again, the first call is compared with the last call its log
 * records ({@link seed}).
 */
export class CacheWatch {
  private pending: CallShape | undefined;
  private previous: Answered | undefined;
  /** What happened to the history since the previous call. */
  private since: { compaction: boolean; rewind: boolean } = { compaction: false, rewind: false };
  private readonly hashes = new WeakMap<object, { hash: string; size: number }>();

  constructor(private readonly lifetimeMs = DEFAULT_CACHE_LIFETIME_MS) {}

  /** The call about to be sent (called from the agent's stream function). */
  sending(model: Model<Api>, context: Context, thinking: string, at = Date.now()): void {
    this.pending = {
      provider: model.provider,
      model: model.id,
      thinking,
      systemPrompt: context.systemPrompt ?? '',
      tools: toolShape(context.tools ?? []),
      messages: context.messages.map((m) => this.hashOf(m).hash),
      sizes: context.messages.map((m) => this.hashOf(m).size),
      at,
    };
  }

  /**
   * The last call of an earlier run of the session (read from its log when it is opened again):
   * the next call is compared with it. `messages` is the conversation as it stands now.
   */
  seed(last: LastCall, messages: readonly Message[]): void {
    const { provider, model, thinking, systemPrompt, tools, at, cached, sent } = last;
    const [hashes, sizes] = [messages.map((m) => this.hashOf(m).hash), messages.map((m) => this.hashOf(m).size)];
    this.previous = { shape: { provider, model, thinking, systemPrompt, tools, messages: hashes, sizes, at }, cached, sent };
  }

  compacted(): void {
    this.since.compaction = true;
  }

  rewound(): void {
    this.since.rewind = true;
  }

  /** The call answered with `usage`: a note when its cache reads fell past the threshold. */
  answered(usage: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'>, model: Model<Api>): CacheBreakNote | undefined {
    const shape = this.pending;
    this.pending = undefined;
    if (!shape) return undefined;
    const previous = this.previous;
    const since = this.since;
    const [cacheRead, cacheWrite] = [tokens(usage.cacheRead), tokens(usage.cacheWrite)];
    const sent = tokens(usage.input) + cacheRead + cacheWrite;
    this.previous = { shape, cached: cacheRead + cacheWrite, sent };
    this.since = { compaction: false, rewind: false };
    if (!previous) return undefined;
    // No call can read more than it sent; after a rewind, nor more of the call before than it
    // sends again: what the rewind took out of the prompt is not a loss.
    const expected = Math.min(previous.cached, sent > 0 ? sent : Infinity, since.rewind ? resentTokens(previous, shape) : Infinity);
    const lost = expected - cacheRead;
    if (lost < CACHE_BREAK_MIN_TOKENS || lost <= expected * CACHE_BREAK_SHARE) return undefined;
    const { cause, detail } = causeOf(previous.shape, shape, since, this.lifetimeMs);
    const cost = lostCost(lost, model);
    return { cause, detail, cacheRead, expected, cost: Number.isFinite(cost) ? cost : 0 };
  }

  /** A message's hash, as the provider reads it (its role and content; times and usage are not sent). */
  private hashOf(m: Message): { hash: string; size: number } {
    let known = this.hashes.get(m);
    if (known === undefined) {
      const { role, content } = m;
      const extra = m.role === 'toolResult' ? [m.toolCallId, m.isError] : [];
      const text = JSON.stringify([role, content, ...extra]);
      known = { hash: sha256Hex(text), size: text.length };
      this.hashes.set(m, known);
    }
    return known;
  }
}

/**
 * The tokens of the call before that this call sends again, in proportion to their characters:
 * the system prompt and tools, and each of its messages this call still holds. No bound when the
 * model, system prompt or tools changed (then all is lost) or the size is not known.
 */
function resentTokens(before: Answered, now: CallShape): number {
  const { shape } = before;
  if (before.sent === 0 || shape.provider !== now.provider || shape.model !== now.model || shape.systemPrompt !== now.systemPrompt) return Infinity;
  if (JSON.stringify(shape.tools) !== JSON.stringify(now.tools)) return Infinity;
  const fixed = shape.systemPrompt.length + JSON.stringify(shape.tools).length;
  const held = new Set(now.messages);
  let total = fixed;
  let again = fixed;
  shape.messages.forEach((hash, i) => {
    total += shape.sizes[i]!;
    if (held.has(hash)) again += shape.sizes[i]!;
  });
  return again === total ? Infinity : Math.floor((before.sent * again) / total);
}

/** The first difference between two calls that a prompt cache depends on, most decisive first. */
export function causeOf(
  before: CallShape,
  now: CallShape,
  since: { readonly compaction: boolean; readonly rewind: boolean },
  lifetimeMs: number,
): { cause: CacheBreakCause; detail: string } {
  if (before.provider !== now.provider || before.model !== now.model)
    return { cause: 'model', detail: `${before.provider}/${before.model} → ${now.provider}/${now.model}` };
  if (before.thinking !== now.thinking) return { cause: 'thinking', detail: `thinking ${before.thinking} → ${now.thinking}` };
  if (before.systemPrompt !== now.systemPrompt) return { cause: 'system-prompt', detail: systemPromptChange(before.systemPrompt, now.systemPrompt) };
  const tools = toolsChange(before.tools, now.tools);
  if (tools) return { cause: 'tools', detail: tools };
  const first = before.messages.findIndex((h, i) => now.messages[i] !== h);
  // A rewind (or an edit and resend) only takes messages off the end, and what it took is not
  // expected (see answered): a loss after it lies in what it kept, so its cause is further down.
  if (first >= 0 && (since.compaction || !since.rewind)) {
    const where = `from message ${first + 1} of ${before.messages.length}`;
    if (since.compaction) return { cause: 'compaction', detail: `the conversation was summarized (${where})` };
    return { cause: 'history-rewritten', detail: `the conversation sent changed ${where}` };
  }
  const idle = now.at - before.at;
  if (idle > lifetimeMs) return { cause: 'expired', detail: `${minutes(idle)} since the call before; the provider keeps a cache about ${minutes(lifetimeMs)}` };
  return { cause: 'unknown', detail: 'the prompt began as before: the provider dropped or did not keep its cache' };
}

/** Which line of the system prompt changed first. */
function systemPromptChange(before: string, now: string): string {
  const [a, b] = [before.split('\n'), now.split('\n')];
  const line = a.findIndex((l, i) => b[i] !== l);
  const at = line < 0 ? a.length : line;
  const text = (b[at] ?? '').trim();
  return `line ${at + 1} of the system prompt${text ? ` ("${excerpt(text, 60)}")` : ' (removed)'}`;
}

/** The tools added, removed, changed or reordered; undefined when the list is the same. */
function toolsChange(before: CallShape['tools'], now: CallShape['tools']): string | undefined {
  if (JSON.stringify(before) === JSON.stringify(now)) return undefined;
  const was = new Map(before);
  const is = new Map(now);
  const parts: string[] = [];
  const added = [...is.keys()].filter((n) => !was.has(n));
  const removed = [...was.keys()].filter((n) => !is.has(n));
  const changed = [...is.keys()].filter((n) => was.has(n) && was.get(n) !== is.get(n));
  if (added.length) parts.push(`added ${added.join(', ')}`);
  if (removed.length) parts.push(`removed ${removed.join(', ')}`);
  if (changed.length) parts.push(`changed ${changed.join(', ')}`);
  return parts.length ? parts.join('; ') : 'the tools were sent in another order';
}

/** A token count a provider reported, as a count: anything else (negative, NaN, missing) is none. */
const tokens = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0);

const minutes = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

/** What `lost` tokens cost at the input price over the cache-read price (the model's prices are per million tokens). */
function lostCost(lost: number, model: Model<Api>): number {
  return (lost * Math.max(0, model.cost.input - model.cost.cacheRead)) / 1_000_000;
}
