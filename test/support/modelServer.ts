import http from 'node:http';
import type { Api, Model } from '@mariozechner/pi-ai';
import { resolveModel } from '../../src/core/model/modelSettings';
import type { AddressInfo } from 'node:net';
import { anthropicMessages } from './modelWire/anthropicMessages';
import { chatCompletions } from './modelWire/chatCompletions';
import { responses } from './modelWire/responses';
import type { AnswerReply, WireFormat, WireStream } from './modelWire/wire';

/** The APIs the server speaks, by route. */
const WIRE_FORMATS: readonly WireFormat[] = [chatCompletions, responses, anthropicMessages];

export type { ScriptedToolCall, ScriptedUsage } from './modelWire/wire';

/** What the server answers to one request. */
export type ScriptedReply =
  | AnswerReply
  /** Answers with an error status, after `delayMs` when given (a request that fails after a while). */
  | { readonly kind: 'httpError'; readonly status: number; readonly message: string; readonly delayMs?: number }
  /** Sends the chunks, then keeps the connection open without another byte until the client gives up. */
  | { readonly kind: 'stall'; readonly chunks: readonly string[] }
  /** Sends the chunks, then destroys the connection mid-stream. */
  | { readonly kind: 'break'; readonly chunks: readonly string[] };

/** A request as the server received it. */
export interface RecordedRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: { model?: string; stream?: boolean; messages?: Array<{ role: string; content: unknown }>; tools?: unknown[]; [key: string]: unknown };
}

/**
 * What the server says about a model's limits, in the shape of the server it plays: llama-server's
 * `GET /props`, Ollama's `GET /api/ps` and `POST /api/show`, LM Studio's `GET /api/v0/models/<id>`,
 * extra fields of the model's entry in `GET /v1/models` (vLLM's `max_model_len`). Absent: 404.
 */
export interface ServedLimits {
  readonly props?: object;
  readonly ollamaPs?: object;
  readonly ollamaShow?: object;
  readonly lmStudioModel?: object;
  readonly modelsEntry?: object;
}

/**
 * A provider's prompt cache, played as OpenAI's automatic caching works: a request whose prompt
 * (tools, then messages in order) begins with the prompt of an earlier request of the same model
 * and reasoning effort, seen within `lifetimeMs`, has that common beginning read from the cache,
 * in whole blocks of `blockTokens`, once it reaches `minTokens`. Tokens are counted as 4 bytes of
 * the prompt's JSON. A hit keeps the entry alive for another lifetime.
 */
export interface PromptCacheRules {
  readonly minTokens: number;
  readonly blockTokens: number;
  readonly lifetimeMs: number;
}

export const OPENAI_CACHE_RULES: PromptCacheRules = { minTokens: 1024, blockTokens: 128, lifetimeMs: 5 * 60_000 };

const BYTES_PER_TOKEN = 4;

/**
 * The prompt a request sends, as a cache sees it: what must match (model, effort) and the text
 * compared by its beginning (tools, then the Responses API's instructions and input or the
 * Messages API's system prompt, then the messages).
 */
export function promptOf(body: RecordedRequest['body']): { namespace: string; text: string } {
  const head = [body.instructions, body.system].filter((x) => x !== undefined).map((x) => JSON.stringify(x));
  const turns = [...(body.messages ?? []), ...(Array.isArray(body.input) ? (body.input as unknown[]) : [])];
  const parts = [JSON.stringify(body.tools ?? []), ...head, ...turns.map((m) => JSON.stringify(m))];
  return { namespace: `${body.model ?? ''}\0${String(body.reasoning_effort ?? '')}`, text: parts.join('\n') };
}

/** How many leading characters two texts share. */
export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The prompts a server has seen, and what each new one reads from them. */
class PromptCache {
  private readonly entries: { namespace: string; text: string; lastUsed: number }[] = [];

  constructor(
    private readonly rules: PromptCacheRules,
    private readonly now: () => number,
  ) {}

  /** The prompt's tokens and how many of them the cache holds; the prompt is kept for later requests. */
  read(body: RecordedRequest['body']): { prompt: number; cached: number } {
    const { namespace, text } = promptOf(body);
    const now = this.now();
    let best = 0;
    for (const entry of this.entries) {
      if (entry.namespace !== namespace || now - entry.lastUsed > this.rules.lifetimeMs) continue;
      const shared = commonPrefixLength(entry.text, text);
      if (shared > best) best = shared;
      if (shared > 0) entry.lastUsed = now;
    }
    this.entries.push({ namespace, text, lastUsed: now });
    const sharedTokens = Math.floor(Buffer.byteLength(text.slice(0, best)) / BYTES_PER_TOKEN);
    const cached = sharedTokens >= this.rules.minTokens ? sharedTokens - (sharedTokens % this.rules.blockTokens) : 0;
    return { prompt: Math.ceil(Buffer.byteLength(text) / BYTES_PER_TOKEN), cached };
  }
}

/** Decides a reply when the script is empty; the default refuses with HTTP 500 so a test notices. */
export type FallbackReply = (request: RecordedRequest) => ScriptedReply;

const refuse: FallbackReply = () => ({ kind: 'httpError', status: 500, message: 'the scripted model server has no reply queued for this request' });

/**
 * A model server on 127.0.0.1 whose answers are scripted: each request takes the next queued
 * reply (text in chunks, tool calls, thinking, usage with cached tokens, an HTTP error, a stall, a
 * broken stream), streamed as SSE or returned whole as the request asks, in the wire format of the
 * route asked: OpenAI's Chat Completions (`/v1/chat/completions`, as Braid reaches Ollama or vLLM),
 * OpenAI's Responses (`/v1/responses`, as Codex speaks) or Anthropic's Messages (`/v1/messages`,
 * as Claude Code speaks).
 */
/**
 * The model reads files (read before write: an existing file changes only once the session has
 * read it), as the step before a scripted change to them.
 */
export function readFileReply(files: string | readonly string[], id = 'read'): ScriptedReply {
  const list = typeof files === 'string' ? [files] : files;
  return { kind: 'toolCalls', calls: list.map((file, i) => ({ id: `${id}-${i}-${file}`, name: 'read_file', arguments: JSON.stringify({ path: file }) })) };
}

export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  /** What the server answered to each chat request, in order (with the cache's counts when it plays one). */
  readonly replies: ScriptedReply[] = [];
  /** The limit endpoints asked, as "GET /props", in order. */
  readonly limitRequests: string[] = [];
  /** What the limit endpoints answer; set it to play llama-server, Ollama, LM Studio or vLLM. */
  limits: ServedLimits = {};
  private readonly script: ScriptedReply[] = [];
  private readonly server: http.Server;
  private readonly open = new Set<http.ServerResponse>();
  private counter = 0;
  private cache: PromptCache | undefined;
  /** The server's clock (a test moves it on to outlive the cache). */
  now: () => number = () => Date.now();

  constructor(
    private readonly fallback: FallbackReply = refuse,
    readonly modelId = 'scripted-model',
  ) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  /** Starts listening on a free port of 127.0.0.1 and returns the base URL (ending in /v1). */
  async start(port = 0): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    return this.baseUrl;
  }

  /** The settings that point VS Code's Braid at this server (after `start`). */
  vscodeSettings(): Record<string, string> {
    return { 'braid.provider': 'openai-compatible', 'braid.model': 'scripted-model', 'braid.baseUrl': this.baseUrl };
  }

  /** A Session's model choice that reaches this server (after `start`). */
  modelChoice(): { model: Model<Api>; thinking: string } {
    return { model: resolveModel({ provider: 'openai-compatible', model: 'scripted-model', baseUrl: this.baseUrl, demo: false }), thinking: 'off' };
  }

  /**
   * From now on the server reports prompt and cached tokens as a caching provider would (see
   * {@link PromptCacheRules}), over what a scripted reply's usage says; completion tokens stay scripted.
   */
  cachePrompts(rules: Partial<PromptCacheRules> = {}): void {
    this.cache = new PromptCache({ ...OPENAI_CACHE_RULES, ...rules }, () => this.now());
  }

  get baseUrl(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  /** Queues replies, answered in order, one per request. */
  enqueue(...replies: ScriptedReply[]): void {
    this.script.push(...replies);
  }

  get pending(): number {
    return this.script.length;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (await this.answerLimits(req, res, path)) return;
    const wire = WIRE_FORMATS.find((w) => w.path === path);
    if (req.method !== 'POST' || (!wire && path !== COUNT_TOKENS)) {
      sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } });
      return;
    }
    let body: RecordedRequest['body'];
    try {
      body = JSON.parse(await readBody(req)) as RecordedRequest['body'];
    } catch {
      sendJson(res, 400, { error: { message: 'request body is not JSON', type: 'invalid_request_error' } });
      return;
    }
    if (!wire) {
      // Anthropic's token counter: an estimate of the prompt, as the cache counts it.
      sendJson(res, 200, { input_tokens: Math.ceil(Buffer.byteLength(promptOf(body).text) / BYTES_PER_TOKEN) });
      return;
    }
    const request: RecordedRequest = { path, headers: req.headers, body };
    this.requests.push(request);
    const reply = this.withCachedUsage(request, this.script.shift() ?? this.fallback(request));
    this.replies.push(reply);
    if (reply.kind === 'httpError') {
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      sendJson(res, reply.status, wire.errorBody(reply.status, reply.message));
      return;
    }
    const meta = {
      id: `${++this.counter}`,
      model: body.model ?? this.modelId,
      created: Math.floor(Date.now() / 1000),
      ...('usage' in reply ? { usage: reply.usage } : {}),
    };
    if (body.stream) await this.stream(res, wire.stream(meta), reply);
    else sendJson(res, 200, wire.whole(meta, reply as AnswerReply));
  }

  /** The reply with the prompt cache's counts, when the server plays one. */
  private withCachedUsage(request: RecordedRequest, reply: ScriptedReply): ScriptedReply {
    if (!this.cache || (reply.kind !== 'text' && reply.kind !== 'toolCalls')) return reply;
    const { prompt, cached } = this.cache.read(request.body);
    // Anthropic's API reports what a request wrote to the cache: here, all it did not read.
    const cacheWrite = request.path === anthropicMessages.path ? prompt - cached : 0;
    return { ...reply, usage: { prompt, cached, cacheWrite, completion: reply.usage?.completion ?? 10 } };
  }

  /** The endpoints that tell a model's limits; true when `path` was one of them. */
  private async answerLimits(req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<boolean> {
    const route = `${req.method} ${path}`;
    const answers: Record<string, object | undefined> = {
      'GET /v1/models': { object: 'list', data: [{ id: this.modelId, object: 'model', owned_by: 'braid-tests', ...this.limits.modelsEntry }] },
      'GET /props': this.limits.props,
      'GET /api/ps': this.limits.ollamaPs,
      'POST /api/show': this.limits.ollamaShow,
      [`GET /api/v0/models/${encodeURIComponent(this.modelId)}`]: this.limits.lmStudioModel,
    };
    if (!(route in answers)) return false;
    if (req.method === 'POST') await readBody(req);
    this.limitRequests.push(route);
    const answer = answers[route];
    if (answer) sendJson(res, 200, answer);
    else sendJson(res, 404, { error: { message: `no route ${route}`, type: 'not_found' } });
    return true;
  }

  private async stream(res: http.ServerResponse, wire: WireStream, reply: Exclude<ScriptedReply, { kind: 'httpError' }>): Promise<void> {
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(wire.begin('thinking' in reply ? reply.thinking : undefined));
    const textChunks = reply.kind === 'toolCalls' ? (reply.text ? [reply.text] : []) : reply.chunks;
    for (const text of textChunks) {
      if (res.destroyed) return;
      res.write(wire.text(text));
      if (reply.kind === 'text' && reply.chunkDelayMs) await delay(reply.chunkDelayMs);
    }
    if (reply.kind === 'stall') return; // never another byte; close() or the client ends it
    if (reply.kind === 'break') {
      await delay(50); // let the chunks reach the client, then cut the connection without an end
      res.socket?.destroy();
      return;
    }
    res.end(wire.finish(reply));
  }
}

/** Anthropic's `POST /v1/messages/count_tokens`, which Claude Code may ask before a request. */
const COUNT_TOKENS = '/v1/messages/count_tokens';

function sendJson(res: http.ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
