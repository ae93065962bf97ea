import { getModels, getProviders, type Api, type KnownProvider, type Model } from '@mariozechner/pi-ai';
import { probeServerLimits, type ServerLimits } from './serverLimits';

/** The user's model choice, as the extension's settings or the CLI's environment give it. */
export interface ModelSettings {
  /** A pi-ai provider id, `openai-compatible`, or empty for none. */
  readonly provider: string;
  readonly model: string;
  /** Required for `openai-compatible`; overrides the provider's URL otherwise. */
  readonly baseUrl: string;
  /** The scripted demo server of `npm start`; shown as such in the UI. */
  readonly demo: boolean;
  /** The user's context window in tokens, over what the server or catalogue says; 0 or absent: theirs. */
  readonly contextWindow?: number;
  /** The most tokens an answer may have (the request's max_tokens); 0 or absent: the server's, else a default. */
  readonly maxOutputTokens?: number;
  /** An OpenAI-compatible model reads images (servers do not say; absent: text only). */
  readonly imageInput?: boolean;
}

/** A configuration the user has to fix; the message says how, in one sentence. */
export class ModelConfigError extends Error {
  override readonly name = 'ModelConfigError';
}

export const OPENAI_COMPATIBLE = 'openai-compatible';

/** How the user names each setting where they set it, so errors point at the right knob. */
export interface SettingNames {
  readonly provider: string;
  readonly model: string;
  readonly baseUrl: string;
  readonly contextWindow: string;
  readonly maxOutputTokens: string;
}

/** The extension's settings. */
export const SETTINGS_NAMES: SettingNames = {
  provider: 'braid.provider',
  model: 'braid.model',
  baseUrl: 'braid.baseUrl',
  contextWindow: 'braid.contextWindow',
  maxOutputTokens: 'braid.maxOutputTokens',
};
/** The CLI's environment variables. */
export const ENV_NAMES: SettingNames = {
  provider: 'BRAID_PROVIDER',
  model: 'BRAID_MODEL',
  baseUrl: 'BRAID_BASE_URL',
  contextWindow: 'BRAID_CONTEXT_WINDOW',
  maxOutputTokens: 'BRAID_MAX_OUTPUT_TOKENS',
};

/** Context window assumed for an OpenAI-compatible model whose server does not say. */
const DEFAULT_CONTEXT_WINDOW = 128_000;
/** The longest answer asked of such a model by default; a quarter of a smaller window. */
const DEFAULT_MAX_TOKENS = 8_192;
const MIN_CONTEXT_WINDOW = 1_024;

/** The limits a model runs with, and where each came from (the model line shows both). */
export interface ModelLimits {
  readonly contextWindow: number;
  /** Such as "braid.contextWindow", "llama-server /props", "the model catalogue", "Braid's default". */
  readonly contextFrom: string;
  readonly maxOutputTokens: number;
  readonly outputFrom: string;
}

/** A model for the kernel, with its limits applied and explained. */
export interface ResolvedModel {
  readonly model: Model<Api>;
  readonly limits: ModelLimits;
}

/** A user's limit: undefined when unset (0 or absent); a ModelConfigError when not a whole number of tokens. */
function userLimit(value: number | undefined, name: string, min: number): number | undefined {
  if (value === undefined || value === 0) return undefined;
  if (!Number.isInteger(value) || value < min)
    throw new ModelConfigError(`${name} must be a whole number of tokens, at least ${min} (or 0 to use what the server or catalogue says).`);
  return value;
}

/**
 * The model with its limits: the user's settings first, then what the server reports, then the
 * catalogue's (or, for a server that says nothing, Braid's defaults). A default answer length is
 * at most a quarter of a window from the server or the defaults, and half of a catalogue model's,
 * so a small local model is never asked for more than it can hold.
 */
export function withLimits(
  model: Model<Api>,
  settings: ModelSettings,
  names: SettingNames,
  server?: ServerLimits,
  catalogueName = 'the model catalogue',
): ResolvedModel {
  const catalogue = model.provider !== OPENAI_COMPATIBLE;
  const userWindow = userLimit(settings.contextWindow, names.contextWindow, MIN_CONTEXT_WINDOW);
  const userOutput = userLimit(settings.maxOutputTokens, names.maxOutputTokens, 1);
  const [contextWindow, contextFrom] = userWindow
    ? [userWindow, names.contextWindow]
    : server?.contextWindow
      ? [server.contextWindow, server.contextFrom ?? 'the server']
      : catalogue
        ? [model.contextWindow, catalogueName]
        : [DEFAULT_CONTEXT_WINDOW, "Braid's default (the server did not say)"];
  const [maxOutputTokens, outputFrom] = userOutput
    ? [userOutput, names.maxOutputTokens]
    : server?.maxOutputTokens
      ? [server.maxOutputTokens, server.outputFrom ?? 'the server']
      : catalogue
        ? [Math.min(model.maxTokens, Math.floor(contextWindow / 2)), catalogueName]
        : [Math.min(DEFAULT_MAX_TOKENS, Math.floor(contextWindow / 4)), "Braid's default (a quarter of the window, at most 8,192)"];
  return { model: { ...model, contextWindow, maxTokens: maxOutputTokens }, limits: { contextWindow, contextFrom, maxOutputTokens, outputFrom } };
}

/**
 * The model with the limits its server reports (an OpenAI-compatible server is asked, once per
 * process, unless the user set both limits), the user's settings over them.
 */
export async function resolveModelWithLimits(settings: ModelSettings, names: SettingNames = SETTINGS_NAMES, probe = probeServerLimits): Promise<ResolvedModel> {
  const model = catalogueModel(settings, names);
  withLimits(model, settings, names); // a bad limit setting fails before any request
  const both = Boolean(settings.contextWindow && settings.maxOutputTokens);
  const server = model.provider === OPENAI_COMPATIBLE && !both ? await probe(model.baseUrl, model.id) : undefined;
  return withLimits(model, settings, names, server);
}

/**
 * Turns settings into the kernel's model description, without asking a server for its limits.
 * Known providers use pi-ai's catalogue (prices, context windows); `openai-compatible` describes
 * a server at `baseUrl`.
 */
export function resolveModel(settings: ModelSettings, names: SettingNames = SETTINGS_NAMES): Model<Api> {
  return withLimits(catalogueModel(settings, names), settings, names).model;
}

/** The model as the settings name it, with the catalogue's (or the defaults') limits. */
function catalogueModel(settings: ModelSettings, names: SettingNames): Model<Api> {
  const provider = settings.provider.trim();
  const modelId = settings.model.trim();
  if (!provider) throw new ModelConfigError(`No model is configured: set ${names.provider} and ${names.model}.`);
  if (!modelId) throw new ModelConfigError(`No model id is set for provider "${provider}": set ${names.model}.`);

  if (provider === OPENAI_COMPATIBLE) {
    const baseUrl = settings.baseUrl.trim();
    if (!baseUrl)
      throw new ModelConfigError(`Provider openai-compatible needs a server address: set ${names.baseUrl} (for example http://127.0.0.1:11434/v1).`);
    if (!/^https?:\/\//i.test(baseUrl)) throw new ModelConfigError(`${names.baseUrl} "${baseUrl}" is not an http(s) URL.`);
    return {
      id: modelId,
      name: settings.demo ? `${modelId} (demo)` : modelId,
      api: 'openai-completions',
      provider: OPENAI_COMPATIBLE,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      reasoning: false,
      input: settings.imageInput ? ['text', 'image'] : ['text'],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: DEFAULT_CONTEXT_WINDOW,
      maxTokens: DEFAULT_MAX_TOKENS,
      compat: { supportsStore: false, supportsDeveloperRole: false, supportsUsageInStreaming: true, maxTokensField: 'max_tokens' },
    };
  }

  const known = getProviders() as string[];
  if (!known.includes(provider)) {
    throw new ModelConfigError(`Unknown provider "${provider}": use one of ${[...known, OPENAI_COMPATIBLE].join(', ')}.`);
  }
  const model = getModels(provider as KnownProvider).find((m) => m.id === modelId) as Model<Api> | undefined;
  if (!model) throw new ModelConfigError(`Provider "${provider}" has no model "${modelId}": check ${names.model}.`);
  return settings.baseUrl.trim() ? { ...model, baseUrl: settings.baseUrl.trim() } : model;
}
