import { getModels, getProviders, type Api, type KnownProvider, type Model } from '@mariozechner/pi-ai';

/** The user's model choice, as the extension's settings or the CLI's environment give it. */
export interface ModelSettings {
  /** A pi-ai provider id, `openai-compatible`, or empty for none. */
  readonly provider: string;
  readonly model: string;
  /** Required for `openai-compatible`; overrides the provider's URL otherwise. */
  readonly baseUrl: string;
  /** The scripted demo server of `npm start`; shown as such in the UI. */
  readonly demo: boolean;
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
}

/** The extension's settings. */
export const SETTINGS_NAMES: SettingNames = { provider: 'braid.provider', model: 'braid.model', baseUrl: 'braid.baseUrl' };
/** The CLI's environment variables. */
export const ENV_NAMES: SettingNames = { provider: 'BRAID_PROVIDER', model: 'BRAID_MODEL', baseUrl: 'BRAID_BASE_URL' };

/** Context window assumed for an OpenAI-compatible model, which does not tell us its own. */
const DEFAULT_CONTEXT_WINDOW = 128_000;
const DEFAULT_MAX_TOKENS = 8_192;

/**
 * Turns settings into the kernel's model description. Known providers use pi-ai's catalogue
 * (prices, context windows); `openai-compatible` describes a server at `baseUrl`.
 */
export function resolveModel(settings: ModelSettings, names: SettingNames = SETTINGS_NAMES): Model<Api> {
  const provider = settings.provider.trim();
  const modelId = settings.model.trim();
  if (!provider) throw new ModelConfigError(`No model is configured: set ${names.provider} and ${names.model}.`);
  if (!modelId) throw new ModelConfigError(`No model id is set for provider "${provider}": set ${names.model}.`);

  if (provider === OPENAI_COMPATIBLE) {
    const baseUrl = settings.baseUrl.trim();
    if (!baseUrl) throw new ModelConfigError(`Provider openai-compatible needs a server address: set ${names.baseUrl} (for example http://127.0.0.1:11434/v1).`);
    if (!/^https?:\/\//i.test(baseUrl)) throw new ModelConfigError(`${names.baseUrl} "${baseUrl}" is not an http(s) URL.`);
    return {
      id: modelId,
      name: settings.demo ? `${modelId} (demo)` : modelId,
      api: 'openai-completions',
      provider: OPENAI_COMPATIBLE,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      reasoning: false,
      input: ['text'],
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
