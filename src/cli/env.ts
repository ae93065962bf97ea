import type { ModelSettings } from '../core/model/modelSettings';

/** The CLI's model settings come from the environment. */
export function modelSettingsFromEnv(env: NodeJS.ProcessEnv): ModelSettings {
  return {
    provider: env.BRAID_PROVIDER ?? '',
    model: env.BRAID_MODEL ?? '',
    baseUrl: env.BRAID_BASE_URL ?? '',
    demo: false,
  };
}
