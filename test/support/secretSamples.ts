import { createHash } from 'node:crypto';

// Secrets for the redaction's tests: built to the shapes their issuers document, from bytes that
// are reproducible (a SHA-256 chain of a seed), so a failure shows the same values again.

export const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const URL_SAFE = `${ALPHANUMERIC}_-`;
const DIGITS = '0123456789';
const HEX_DIGITS = '0123456789abcdef';

/** `length` reproducible bytes for `seed`. */
export function bytesOf(seed: string, length: number): Buffer {
  const chunks: Buffer[] = [];
  for (let i = 0; chunks.length * 32 < length; i++) chunks.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(chunks).subarray(0, length);
}

/** `length` characters of `alphabet`, drawn from `seed`'s bytes. */
export function drawn(seed: string, alphabet: string, length: number): string {
  return [...bytesOf(seed, length)].map((b) => alphabet[b % alphabet.length]).join('');
}

const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** A token of each format the redaction knows by its shape, as its issuer documents it. */
export function sampleTokens(seed: string): { readonly name: string; readonly token: string }[] {
  const d = (part: string, alphabet: string, n: number) => drawn(`${seed}:${part}`, alphabet, n);
  return [
    { name: 'OpenAI (legacy)', token: `sk-${d('openai', ALPHANUMERIC, 48)}` },
    { name: 'OpenAI (project)', token: `sk-proj-${d('proj1', URL_SAFE, 74)}T3BlbkFJ${d('proj2', URL_SAFE, 74)}` },
    { name: 'Anthropic', token: `sk-ant-api03-${d('ant', URL_SAFE, 93)}AA` },
    { name: 'OpenRouter', token: `sk-or-v1-${d('or', HEX_DIGITS, 64)}` },
    ...['ghp', 'gho', 'ghu', 'ghs', 'ghr'].map((p) => ({ name: `GitHub ${p}_`, token: `${p}_${d(p, ALPHANUMERIC, 36)}` })),
    { name: 'GitHub fine-grained', token: `github_pat_${d('pat1', ALPHANUMERIC, 22)}_${d('pat2', ALPHANUMERIC, 59)}` },
    { name: 'GitLab', token: `glpat-${d('gl', URL_SAFE, 20)}` },
    { name: 'Slack bot', token: `xoxb-${d('sb1', DIGITS, 12)}-${d('sb2', DIGITS, 13)}-${d('sb3', ALPHANUMERIC, 24)}` },
    { name: 'Slack user', token: `xoxp-${d('su1', DIGITS, 11)}-${d('su2', DIGITS, 11)}-${d('su3', DIGITS, 12)}-${d('su4', HEX_DIGITS, 32)}` },
    { name: 'AWS access key id', token: `AKIA${d('aws', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}` },
    { name: 'AWS temporary key id', token: `ASIA${d('asia', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}` },
    { name: 'Google API key', token: `AIza${d('google', URL_SAFE, 35)}` },
    { name: 'Stripe secret', token: `sk_live_${d('stripe', ALPHANUMERIC, 24)}` },
    { name: 'Stripe restricted', token: `rk_live_${d('rk', ALPHANUMERIC, 24)}` },
    { name: 'npm', token: `npm_${d('npm', ALPHANUMERIC, 36)}` },
    { name: 'Hugging Face', token: `hf_${d('hf', ALPHANUMERIC, 34)}` },
    {
      name: 'JWT',
      token: `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: d('sub', DIGITS, 10), iat: 1_700_000_000 })}.${d('sig', URL_SAFE, 43)}`,
    },
  ];
}

/** An RSA private key's PEM block (not a real key: its body is drawn bytes). */
export function samplePrivateKey(seed: string): string {
  const body = bytesOf(seed, 600).toString('base64');
  const lines = body.match(/.{1,64}/g)!.join('\n');
  return `-----BEGIN RSA PRIVATE KEY-----\n${lines}\n-----END RSA PRIVATE KEY-----`;
}
