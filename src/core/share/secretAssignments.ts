import { MARK, matchesOf, sampleOf, type Cut } from './redaction';
import { isPlaceholder } from './secretTokens';

// Secrets given a name: `API_KEY=...`, `"password": "..."`, `token: '...'`, `--password ...`, and
// fields of records named so. The name decides (its last word); the value is replaced, the name
// and the quotes stay.

/** Last words of a name that mark its value a secret. */
const SECRET_WORDS = new Set(['token', 'secret', 'password', 'passwd', 'passphrase', 'apikey', 'secretkey', 'accesskey', 'privatekey', 'authkey']);

/** Words before `key` that make it a secret's name (`apiKey`, `private_key`, `SECRET_ACCESS_KEY`); `sortKey`, `cacheKey` are not. */
const KEY_QUALIFIERS = new Set([
  'api',
  'access',
  'secret',
  'private',
  'auth',
  'client',
  'encryption',
  'signing',
  'master',
  'session',
  'service',
  'account',
  'app',
  'license',
  'deploy',
  'ssh',
]);

/** An environment-style name: upper-case words joined by `_`, two or more (`STRIPE_KEY`, `DB_PASS`). */
const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

/** Values that say there is none. */
const NO_VALUE = new Set(['null', 'none', 'nil', 'undefined', 'true', 'false', 'string', 'required', 'optional']);

/**
 * How surely a name is a secret's: `sure` when its last word is token, secret, password (...) or
 * key after api, access, private (...); `env` for an upper-case `_KEY` or `_PASS` name
 * (`STRIPE_KEY`), a secret in an environment (`STRIPE_KEY=...`, a field of an `env` object) but in
 * code as often a constant's name (`const STORAGE_KEY = 'view.state'`); null for any other name.
 */
export type SecretName = 'sure' | 'env' | null;

const nameCache = new Map<string, SecretName>();

/** How surely a field or variable so named holds a secret (see {@link SecretName}). */
export function secretName(name: string): SecretName {
  let known = nameCache.get(name);
  if (known === undefined) {
    if (nameCache.size > 10_000) nameCache.clear();
    known = judgeName(name);
    nameCache.set(name, known);
  }
  return known;
}

function judgeName(name: string): SecretName {
  const words = name
    .replace(/\[REDACTED:\w+\]/g, ' ') // a mark's word (`token`) is not the name's
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  const last = words[words.length - 1];
  if (last === undefined) return null;
  if (SECRET_WORDS.has(last) || (last === 'key' && KEY_QUALIFIERS.has(words[words.length - 2] ?? ''))) return 'sure';
  return (last === 'key' || last === 'pass') && UPPER_SNAKE.test(name.replace(/^-+/, '')) ? 'env' : null;
}

/**
 * A value that is not a secret: empty, a placeholder (`$VAR`, `<...>`, `{{...}}`, a redaction, an
 * example cut short as `sk-ant-...` or `gsk_`), a word such as `null` or `true`, the name of the
 * variable that holds the secret (`"apiKey": "OPENAI_API_KEY"`).
 */
function isNoValue(value: string): boolean {
  return (
    value.trim() === '' ||
    isPlaceholder(value) ||
    NO_VALUE.has(value.toLowerCase()) ||
    /(?:\.\.\.|…)$/.test(value) ||
    /^(?:[A-Za-z0-9]{1,6}[-_]){1,3}$/.test(value) ||
    (UPPER_SNAKE.test(value) && secretName(value) !== null)
  );
}

/**
 * The cut for a record field named `name` whose value is the string `value`: all of it when the
 * name is a secret's; for an `Authorization` field, its credentials after the scheme.
 */
export function secretFieldCut(name: string, value: string): Cut | null {
  if (/^(?:proxy-)?authorization$/i.test(name)) {
    const start = /^\s*(?:(?:bearer|basic|token|digest)\s+)?/i.exec(value)![0].length;
    const credentials = value.slice(start);
    return credentials.length < 8 || isNoValue(credentials) ? null : cut(start, value.length, credentials);
  }
  return secretName(name) && !isNoValue(value) ? cut(0, value.length, value) : null;
}

function cut(start: number, end: number, secret: string): Cut {
  return { start, end, by: MARK.token, kind: 'token', sample: sampleOf(secret) };
}

/** Where a name may end in a text: its last word is one of these (case aside), not followed by a letter or digit. */
const NAME_END = /(?:token|secret|passw(?:or)?d|passphrase|key|pass)(?![A-Za-z0-9])/gi;

/** The assignments of secrets in `text` (`NAME=value`, `"name": "value"`, `--name value`): their values' cuts, in order. */
export function assignmentCuts(text: string): Cut[] {
  const cuts: Cut[] = [];
  let after = 0;
  for (const m of matchesOf(NAME_END, text)) {
    if (m.index < after) continue;
    const found = assignmentAt(text, m.index + m[0].length);
    if (found) {
      cuts.push(found);
      after = found.end;
    }
  }
  return cuts;
}

/** The cut of the value assigned to the name that ends at `nameEnd`, when the name is a secret's and a value follows. */
function assignmentAt(text: string, nameEnd: number): Cut | null {
  let nameStart = nameEnd;
  while (nameStart > 0 && /[A-Za-z0-9_.-]/.test(text[nameStart - 1]!)) nameStart--;
  const name = text.slice(nameStart, nameEnd);
  const sure = secretName(name);
  if (text[nameStart - 1] === '$' || text.slice(nameStart - 2, nameStart) === '${' || !sure) return null;
  const operator = /^(?:\\?["'])?(\s*)(:=|=>|={1,3}|:)(\s*)/.exec(text.slice(nameEnd, nameEnd + 16));
  if (operator) {
    const form = operator[2] === ':' ? 'colon' : operator[1] !== '' || operator[3] !== '' ? 'spaced' : 'tight';
    return sure === 'sure' || form === 'tight' ? valueAt(text, nameEnd + operator[0].length, form) : null;
  }
  // `--password value`: a command-line option and its argument.
  const option = name.startsWith('-') ? /^[ \t]+/.exec(text.slice(nameEnd, nameEnd + 8)) : null;
  return option ? valueAt(text, nameEnd + option[0].length, 'tight') : null;
}

/**
 * The cut of the value at `at`: quoted (`"..."`, `'...'`, `` `...` ``, `\"...\"`; no white space
 * inside), or bare. A bare value counts after a tight `=` (`KEY=value`, `--key=value`, a URL's
 * `?token=...`) or an option, and after `:` (YAML, a header) only when it holds a letter and a digit
 * and is 8 characters or more; never in code (`key = value`, `key: Type`, a call, `a.b.c`).
 */
function valueAt(text: string, at: number, form: 'tight' | 'spaced' | 'colon'): Cut | null {
  const quoted = /^(\\?["'`])([^\s"'`\\]+)\1/.exec(text.slice(at, at + 1024));
  if (quoted) {
    const value = quoted[2]!;
    const start = at + quoted[1]!.length;
    return isNoValue(value) ? null : cut(start, start + value.length, value);
  }
  if (form === 'spaced') return null;
  const raw = /^[^\s"'`,;&(){}[\]<>|\\]+/.exec(text.slice(at, at + 1024))?.[0] ?? '';
  const bare = raw.replace(/\.$/, ''); // a sentence's full stop
  if (bare.length < 4 || /(?:\.\.|…)$/.test(raw) || isNoValue(bare) || isCode(bare, text[at + bare.length])) return null;
  if (form === 'colon' && !(bare.length >= 8 && /[0-9]/.test(bare) && /[A-Za-z]/.test(bare))) return null;
  return cut(at, at + bare.length, bare);
}

/** A bare value that reads as code: a call (`getToken()`), a property (`process.env.TOKEN`), another secret's name (`api_key=API_KEY`). */
function isCode(bare: string, next: string | undefined): boolean {
  return next === '(' || /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/.test(bare) || secretName(bare) !== null;
}
