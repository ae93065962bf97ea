import { findEnvKeys, getProviders } from '@mariozechner/pi-ai';

/** Key variables read for a model besides those pi-ai's providers name (see src/core/model/apiKey.ts). */
const OWN_KEY_VARIABLES = ['BRAID_API_KEY', 'AWS_BEARER_TOKEN_BEDROCK'];

/**
 * Names of the variables in this process's environment that hold a key Braid could hand a model
 * provider: `BRAID_API_KEY` and every provider variable pi-ai reads (OPENAI_API_KEY,
 * ANTHROPIC_API_KEY, GH_TOKEN for Copilot, ...), asked of pi-ai so the list follows its providers.
 */
export function modelKeyVariables(): Set<string> {
  const names = new Set(OWN_KEY_VARIABLES);
  for (const provider of getProviders()) for (const name of findEnvKeys(provider) ?? []) names.add(name);
  return names;
}

/**
 * The environment of every process Braid starts (shell commands, the prompt hook, git): Braid's own
 * environment without the model keys, then `extra`. A command the model wrote must not be able to
 * print a key into its output, which goes to the model and into the session's files.
 */
export function childEnvironment(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const keys = new Set([...modelKeyVariables()].map((n) => n.toUpperCase()));
  const env: NodeJS.ProcessEnv = {};
  // Compared in upper case: Windows names are case-insensitive.
  for (const [name, value] of Object.entries(process.env)) if (!keys.has(name.toUpperCase())) env[name] = value;
  return { ...env, ...extra };
}
