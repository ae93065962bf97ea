/**
 * The variables Braid and pi-ai take a provider's key from (`src/core/model/apiKey.ts`, pi-ai's
 * `getEnvApiKey`, which reads `process.env` only, so its list is kept here; a test checks it
 * against pi-ai's providers). Most also end in a suffix of {@link SECRET_SUFFIX}; the others are
 * why the list exists.
 */
const KEY_VARIABLES = [
  'BRAID_API_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_OAUTH_TOKEN',
  'OPENAI_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_CLOUD_API_KEY',
  'COPILOT_GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'HF_TOKEN',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
];

/** Any variable whose name ends so holds a secret by convention. */
const SECRET_SUFFIX = /_(?:API_KEY|TOKEN|SECRET|PASSWORD)$/;

/** Shorter values are not taken for keys: a placeholder (`none`, `no-key`) would replace ordinary words everywhere. */
export const MIN_SECRET_LENGTH = 8;

/**
 * The secrets Braid knows from `env`: the provider key variables (`BRAID_API_KEY`, those pi-ai
 * reads), any variable named `*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, and `extra` (a
 * stored key); each trimmed, kept when 8 characters or longer, without repeats, longest first.
 */
export function knownSecrets(env: NodeJS.ProcessEnv, extra: readonly string[] = []): string[] {
  const values = new Set<string>();
  const take = (value: string | undefined) => {
    const v = value?.trim();
    if (v && v.length >= MIN_SECRET_LENGTH) values.add(v);
  };
  for (const name of KEY_VARIABLES) take(env[name]);
  for (const [name, value] of Object.entries(env)) if (SECRET_SUFFIX.test(name)) take(value);
  extra.forEach(take);
  return [...values].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
}
