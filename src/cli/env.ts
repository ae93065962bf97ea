import type { ModelSettings } from '../core/model/modelSettings';

/** A token count from the environment: unset or empty is 0 (not set); anything else is checked where it is used. */
function tokens(value: string | undefined): number {
  return value === undefined || value.trim() === '' ? 0 : Number(value.trim());
}

/** The CLI's model settings come from the environment. */
export function modelSettingsFromEnv(env: NodeJS.ProcessEnv): ModelSettings {
  return {
    provider: env.BRAID_PROVIDER ?? '',
    model: env.BRAID_MODEL ?? '',
    baseUrl: env.BRAID_BASE_URL ?? '',
    demo: false,
    contextWindow: tokens(env.BRAID_CONTEXT_WINDOW),
    maxOutputTokens: tokens(env.BRAID_MAX_OUTPUT_TOKENS),
  };
}
