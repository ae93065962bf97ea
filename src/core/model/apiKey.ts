import { getEnvApiKey } from '@mariozechner/pi-ai';
import { OPENAI_COMPATIBLE } from './modelSettings';

/**
 * The API key for a provider: a stored secret first, then `BRAID_API_KEY`, then the provider's
 * usual variables (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) as the kernel finds them. Local OpenAI-compatible
 * servers usually need none, but the client library insists on one, so they get a placeholder.
 */
export function resolveApiKey(provider: string, env: NodeJS.ProcessEnv, stored?: string): string | undefined {
  if (stored) return stored;
  if (env.BRAID_API_KEY) return env.BRAID_API_KEY;
  if (provider === OPENAI_COMPATIBLE) return 'no-key';
  return getEnvApiKey(provider);
}
