/**
 * The context window and output limit an OpenAI-compatible server reports for a model, where it
 * reports them: llama-server's `/props`, Ollama's `/api/ps` and `/api/show`, LM Studio's
 * `/api/v0/models/<id>`, and fields of `/v1/models` (vLLM's `max_model_len`, gateways'
 * `context_length`). Each is one short request with a timeout, all at once, no API key sent; the
 * answer is cached per server and model for the process, so a turn waits for it once at most.
 */

/** What the server said, and which endpoint said it. */
export interface ServerLimits {
  readonly contextWindow?: number;
  /** Where the window came from, such as "llama-server /props". */
  readonly contextFrom?: string;
  readonly maxOutputTokens?: number;
  readonly outputFrom?: string;
  /**
   * False when the answer may change: only the model's maximum window is known (Ollama and LM
   * Studio say what they run once the model is loaded), or the server did not answer at all.
   */
  readonly settled: boolean;
}

/** How sure a reported window is: what the server runs, what it is configured to run, the model's most. */
const enum Rank {
  Maximum = 1,
  Configured = 2,
  Running = 3,
}

interface Found {
  window?: { tokens: number; from: string; rank: Rank };
  output?: { tokens: number; from: string };
  /** The endpoint answered (any HTTP status): the server is there. */
  answered: boolean;
}

type Json = Record<string, unknown>;

/** Options for tests; the defaults are what Braid uses. */
export interface ProbeOptions {
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 1_500;
const cache = new Map<string, Promise<ServerLimits>>();

const positive = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);
const object = (value: unknown): Json | undefined => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined);

/** The server's root: the base URL without its trailing `/v1` (where llama-server and Ollama serve their own APIs). */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

async function request(url: string, timeoutMs: number, body?: object): Promise<{ answered: boolean; json?: Json }> {
  try {
    const res = await fetch(url, {
      method: body ? 'POST' : 'GET',
      headers: body ? { 'content-type': 'application/json' } : {},
      ...(body ? { body: JSON.stringify(body) } : {}),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return { answered: true };
    return { answered: true, json: object(await res.json()) };
  } catch {
    return { answered: false };
  }
}

function llamaServerProps(json: Json | undefined): Found {
  const settings = object(json?.default_generation_settings);
  const nPredict = positive(object(settings?.params)?.n_predict) ?? positive(settings?.n_predict);
  const nCtx = positive(settings?.n_ctx);
  return {
    answered: true,
    ...(nCtx ? { window: { tokens: nCtx, from: 'llama-server /props', rank: Rank.Running } } : {}),
    ...(nPredict ? { output: { tokens: nPredict, from: 'llama-server /props' } } : {}),
  };
}

function sameModel(entry: Json, model: string): boolean {
  const names = [entry.id, entry.name, entry.model].filter((n): n is string => typeof n === 'string');
  return names.some((n) => n === model || n === `${model}:latest`);
}

function ollamaPs(json: Json | undefined, model: string): Found {
  const loaded = (Array.isArray(json?.models) ? json.models : []).map(object).find((m) => m && sameModel(m, model));
  const tokens = positive(loaded?.context_length);
  return { answered: true, ...(tokens ? { window: { tokens, from: 'Ollama /api/ps', rank: Rank.Running } } : {}) };
}

function ollamaShow(json: Json | undefined): Found {
  const parameters = typeof json?.parameters === 'string' ? json.parameters : '';
  const param = (name: string) => positive(Number(new RegExp(`^\\s*${name}\\s+(\\d+)\\s*$`, 'm').exec(parameters)?.[1]));
  const info = object(json?.model_info) ?? {};
  const maximum = positive(Object.entries(info).find(([key]) => key.endsWith('.context_length'))?.[1]);
  const numCtx = param('num_ctx');
  const numPredict = param('num_predict');
  const window = numCtx
    ? { tokens: numCtx, from: 'Ollama /api/show (num_ctx)', rank: Rank.Configured }
    : maximum
      ? { tokens: maximum, from: "Ollama /api/show (the model's maximum)", rank: Rank.Maximum }
      : undefined;
  return { answered: true, ...(window ? { window } : {}), ...(numPredict ? { output: { tokens: numPredict, from: 'Ollama /api/show (num_predict)' } } : {}) };
}

function lmStudioModel(json: Json | undefined): Found {
  const loaded = positive(json?.loaded_context_length);
  const maximum = positive(json?.max_context_length);
  const window = loaded
    ? { tokens: loaded, from: 'LM Studio /api/v0/models', rank: Rank.Running }
    : maximum
      ? { tokens: maximum, from: "LM Studio /api/v0/models (the model's maximum)", rank: Rank.Maximum }
      : undefined;
  return { answered: true, ...(window ? { window } : {}) };
}

function openAiModels(json: Json | undefined, model: string): Found {
  const entry = (Array.isArray(json?.data) ? json.data : []).map(object).find((m) => m && sameModel(m, model));
  if (!entry) return { answered: true };
  const running = positive(entry.max_model_len) ?? positive(entry.context_length) ?? positive(entry.context_window) ?? positive(entry.max_context_length);
  const trained = positive(object(entry.meta)?.n_ctx_train);
  const output = positive(entry.max_completion_tokens) ?? positive(entry.max_output_tokens) ?? positive(object(entry.top_provider)?.max_completion_tokens);
  const window = running
    ? { tokens: running, from: '/v1/models', rank: Rank.Running }
    : trained
      ? { tokens: trained, from: "/v1/models (the model's maximum)", rank: Rank.Maximum }
      : undefined;
  return { answered: true, ...(window ? { window } : {}), ...(output ? { output: { tokens: output, from: '/v1/models' } } : {}) };
}

async function probe(baseUrl: string, model: string, timeoutMs: number): Promise<ServerLimits> {
  const base = baseUrl.replace(/\/+$/, '');
  const root = serverRoot(base);
  const ask = async (url: string, read: (json: Json | undefined) => Found, body?: object): Promise<Found> => {
    const { answered, json } = await request(url, timeoutMs, body);
    return answered ? read(json) : { answered: false };
  };
  // In order of trust when two say different things: the server's own runtime answer first.
  const found = await Promise.all([
    ask(`${root}/props`, llamaServerProps),
    ask(`${root}/api/ps`, (json) => ollamaPs(json, model)),
    ask(`${root}/api/v0/models/${encodeURIComponent(model)}`, lmStudioModel),
    ask(`${base}/models`, (json) => openAiModels(json, model)),
    ask(`${root}/api/show`, ollamaShow, { model }),
  ]);
  let window: Found['window'];
  for (const f of found) if (f.window && (!window || f.window.rank > window.rank)) window = f.window;
  const output = found.find((f) => f.output)?.output;
  const answered = found.some((f) => f.answered);
  return {
    ...(window ? { contextWindow: window.tokens, contextFrom: window.from } : {}),
    ...(output ? { maxOutputTokens: output.tokens, outputFrom: output.from } : {}),
    settled: answered && (!window || window.rank !== Rank.Maximum),
  };
}

/**
 * The limits the server at `baseUrl` reports for `model`, asked once per process; an answer that
 * may change (see `settled`) is asked again at the next call.
 */
export function probeServerLimits(baseUrl: string, model: string, options: ProbeOptions = {}): Promise<ServerLimits> {
  const key = `${baseUrl}\n${model}`;
  const known = cache.get(key);
  if (known) return known;
  const pending = probe(baseUrl, model, options.timeoutMs ?? DEFAULT_TIMEOUT_MS).then((limits) => {
    if (!limits.settled) cache.delete(key);
    return limits;
  });
  cache.set(key, pending);
  return pending;
}
