import { disjoint, MARK, MARK_START, matchesOf, sampleOf, type Cut } from './redaction';

// Tokens recognised by their shape, as their issuers document them (prefixes, alphabets and
// lengths; gitleaks' rules for the same formats agree). Lengths are minimums where an issuer says
// tokens may grow. A token is matched whole: the character before it is not one a token has.

/**
 * A token's shape: `hints` are texts one of which a text must hold for the shape to be looked for
 * (all hints are searched for at once, which is far quicker than each pattern); with `inGroup`,
 * only the capture group that matched is the secret (the rest stays).
 */
interface TokenShape {
  readonly hints: readonly string[];
  readonly re: RegExp;
  readonly inGroup?: true;
}

/**
 * A token that begins with `prefix` (a regular expression of fixed length) and goes on as `rest`,
 * not preceded by a character a token has (so `task-...` holds no `sk-` key). The check comes
 * after the prefix, so the engine can look for the prefix's letters first.
 */
function token(prefix: string, rest: string): RegExp {
  return new RegExp(`${prefix}(?<![A-Za-z0-9_-]${prefix})${rest}`, 'g');
}

const SHAPES: readonly TokenShape[] = [
  // OpenAI (`sk-`, `sk-proj-`, `sk-svcacct-`, `sk-admin-`: 48+ characters), Anthropic (`sk-ant-api03-`
  // and 95 more), DeepSeek, OpenRouter (`sk-or-v1-`): at least 32 after `sk-`, a digit among them.
  { hints: ['sk-'], re: token('sk-', '(?=[A-Za-z0-9_-]{32})(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]+') },
  // GitHub: ghp_/gho_/ghu_/ghs_/ghr_ and 36 (tokens may grow to 255; ghs_ may hold . and -), github_pat_ and 82.
  { hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], re: token('gh[pousr]_', '(?=[A-Za-z0-9_.-]{36})[A-Za-z0-9_]+(?:[.-][A-Za-z0-9_]+)*') },
  { hints: ['github_pat_'], re: token('github_pat_', '[A-Za-z0-9_]{22,}') },
  // GitLab: glpat- and 20 or more (newer ones end `.01.` and a routing part), and its other token prefixes.
  { hints: ['glpat-'], re: token('glpat-', '[A-Za-z0-9_-]{20,}(?:\\.[A-Za-z0-9]+)*') },
  { hints: ['gldt-', 'glrt-', 'glft-', 'glcbt-', 'glimt-'], re: token('gl(?:dt|rt|ft|cbt|imt)-', '[A-Za-z0-9_-]{20,}') },
  // Slack: xoxb-/xoxp-/xoxa-/xoxr-/xoxs-/xoxo-/xoxe-, a number, then parts; app tokens xapp-.
  { hints: ['xox'], re: token('xox[abeoprs]-', '[0-9]+-[0-9A-Za-z-]{8,}') },
  { hints: ['xapp-'], re: token('xapp-', '[0-9]+-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]+') },
  // AWS access key ids: AKIA (long-term), ASIA (temporary), ABIA, ACCA and 16 upper-case letters or digits.
  { hints: ['AKIA', 'ASIA', 'ABIA', 'ACCA'], re: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])/g },
  // Google API keys: AIza and 35.
  { hints: ['AIza'], re: token('AIza', '[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])') },
  // Stripe secret and restricted keys (live and test), webhook signing secrets.
  { hints: ['k_live_'], re: token('[sr]k_live_', '[0-9A-Za-z]{16,}') },
  { hints: ['k_test_'], re: token('[sr]k_test_', '[0-9A-Za-z]{16,}') },
  { hints: ['whsec_'], re: token('whsec_', '[A-Za-z0-9+/=]{24,}') },
  // npm (npm_ and 36), Hugging Face (hf_ and 34), Groq (gsk_ and 52), xAI (xai- and 80), PyPI (pypi-AgE and a
  // macaroon): matched from a little below the documented lengths.
  { hints: ['npm_'], re: token('npm_', '[A-Za-z0-9]{36}') },
  { hints: ['hf_'], re: token('hf_', '[A-Za-z0-9]{34,}') },
  { hints: ['gsk_'], re: token('gsk_', '[A-Za-z0-9]{48,}') },
  { hints: ['xai-'], re: token('xai-', '[A-Za-z0-9]{64,}') },
  { hints: ['pypi-'], re: token('pypi-AgE', '[A-Za-z0-9_-]{50,}') },
  // JSON Web Tokens: a header and a payload, both base64url JSON objects (`eyJ`), and the signature.
  { hints: ['eyJ'], re: token('eyJ', '[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*') },
  // PEM private keys (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ... BLOCK), to the END line or, cut short, to the end of the text.
  { hints: ['-----BEGIN'], re: /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  // An Authorization header's credentials, in a header line or JSON: after Bearer, Basic, token or
  // Digest, or bare when it holds a digit (so "Authorization: required" in prose stays).
  {
    hints: ['uthorization', 'UTHORIZATION'],
    re: /\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest)\s+([A-Za-z0-9._~+/=-]{8,})|((?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}))/dgi,
    inGroup: true,
  },
  // A password in a URL: scheme://user:password@host (the user stays).
  { hints: ['://'], re: /:\/\/[^\s:@/?#"'`]+:([^\s@/?#"'`]+)@/dg, inGroup: true },
];

/** Every shape's hints in one pattern. */
const HINTS = new RegExp(
  [...new Set(SHAPES.flatMap((s) => s.hints))]
    .sort((a, b) => b.length - a.length)
    .map((h) => h.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))
    .join('|'),
  'g',
);

/** Placeholders in place of a credential: left as they are (a variable, a template, a redaction already made). */
export function isPlaceholder(value: string): boolean {
  return value.startsWith(MARK_START) || value.startsWith('$') || value.startsWith('%') || value.startsWith('<') || value.startsWith('{{');
}

/** The tokens in `text`, disjoint and in order, each to be replaced by `[REDACTED:token]`. */
export function tokenCuts(text: string): Cut[] {
  const hinted = new Set(matchesOf(HINTS, text).map((m) => m[0]));
  if (hinted.size === 0) return [];
  const cuts: Cut[] = [];
  for (const shape of SHAPES) {
    if (!shape.hints.some((hint) => hinted.has(hint))) continue;
    for (const m of matchesOf(shape.re, text)) {
      const [start, end] = shape.inGroup ? m.indices!.slice(1).find((span) => span !== undefined)! : [m.index, m.index + m[0].length];
      const secret = text.slice(start, end);
      if (!isPlaceholder(secret)) cuts.push({ start, end, by: MARK.token, kind: 'token', sample: sampleOf(secret) });
    }
  }
  return disjoint(cuts);
}
