// The front matter of SKILL.md, command and instruction files: the few YAML forms those files use
// (`key: value` lines, quoted strings, lists, `|`/`>` blocks), read strictly. Anything else is an
// error that names its line, never a guess: these files are often a stranger's.

/** A front matter value: a string, or a list of strings. */
export type FrontValue = string | readonly string[];

/** A file split into its front matter (keys in lowercase) and its body. */
export interface FrontMatterFile {
  readonly fields: ReadonlyMap<string, FrontValue>;
  /** Each key's text after the colon as written (Claude Code's `argument-hint: [file] [focus]` is text, not a list). */
  readonly raw: ReadonlyMap<string, string>;
  readonly body: string;
}

/** A front matter that cannot be read; the message names the line. */
export class FrontMatterError extends Error {
  override readonly name = 'FrontMatterError';
}

const KEY_LINE = /^([A-Za-z][\w-]*)\s*:(?:\s+(.*))?$/;

/**
 * Splits `text` into front matter and body. A file without a `---` first line has no front matter
 * (its whole text is the body). Throws FrontMatterError for a front matter it cannot read.
 */
export function readFrontMatter(text: string): FrontMatterFile {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return { fields: new Map(), raw: new Map(), body: text };
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  if (end < 0) throw new FrontMatterError('the front matter has no closing --- line');
  const fields = new Map<string, FrontValue>();
  const raws = new Map<string, string>();
  let i = 1;
  while (i < end) {
    const line = lines[i]!;
    if (line.trim() === '' || line.trimStart().startsWith('#')) {
      i++;
      continue;
    }
    const m = KEY_LINE.exec(line);
    if (!m) throw new FrontMatterError(`line ${i + 1} is not "key: value" (${line.trim().slice(0, 60)})`);
    const key = m[1]!.toLowerCase();
    if (fields.has(key)) throw new FrontMatterError(`line ${i + 1}: "${m[1]}" is given twice`);
    const raw = (m[2] ?? '').trim();
    // Lines that belong to this key: indented ones, or "- item" lines of a list.
    let next = i + 1;
    while (next < end && (/^\s+\S/.test(lines[next]!) || /^-(\s|$)/.test(lines[next]!))) next++;
    const inner = lines.slice(i + 1, next);
    raws.set(key, raw);
    fields.set(key, valueOf(raw, inner, i + 1));
    i = next;
  }
  return { fields, raw: raws, body: lines.slice(end + 1).join('\n') };
}

function valueOf(raw: string, inner: readonly string[], lineNo: number): FrontValue {
  const at = `line ${lineNo}`;
  if (raw === '|' || raw === '>' || raw === '|-' || raw === '>-') {
    const texts = inner.map((l) => l.trim());
    return raw.startsWith('|') ? texts.join('\n').trim() : texts.filter(Boolean).join(' ');
  }
  if (raw === '') {
    if (inner.length === 0) return '';
    return inner.map((l, k) => {
      const item = /^\s*-\s+(.*)$/.exec(l) ?? /^\s*-()$/.exec(l);
      if (!item) throw new FrontMatterError(`line ${lineNo + k + 1}: expected a "- item" line of a list`);
      return scalar(item[1]!.trim(), `line ${lineNo + k + 1}`);
    });
  }
  if (inner.length > 0) {
    // A plain value continued on indented lines (YAML folds them with spaces).
    if (/^["'[{]/.test(raw)) throw new FrontMatterError(`${at}: a quoted value or list must end on its own line`);
    return [raw, ...inner.map((l) => l.trim())].join(' ');
  }
  if (raw.startsWith('[')) {
    if (!raw.endsWith(']')) throw new FrontMatterError(`${at}: the list has no closing ]`);
    const body = raw.slice(1, -1).trim();
    return body === '' ? [] : splitList(body, at).map((item) => scalar(item, at));
  }
  if (raw.startsWith('{')) throw new FrontMatterError(`${at}: nested maps are not read`);
  return scalar(raw, at);
}

/** Splits `a, "b, c", d` at the commas outside quotes. */
function splitList(body: string, at: string): string[] {
  const items: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (const ch of body) {
    if (quote) {
      current += ch;
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === ',') {
      items.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (quote) throw new FrontMatterError(`${at}: a quoted item is not closed`);
  items.push(current.trim());
  return items;
}

/** A single value: quoted ("…" with \-escapes, '…' with '' for a quote) or plain (a trailing # comment dropped). */
function scalar(raw: string, at: string): string {
  if (raw.startsWith('"')) {
    if (raw.length < 2 || !raw.endsWith('"')) throw new FrontMatterError(`${at}: the quoted value is not closed`);
    try {
      return JSON.parse(raw) as string;
    } catch {
      throw new FrontMatterError(`${at}: the quoted value has an escape that is not read`);
    }
  }
  if (raw.startsWith("'")) {
    if (raw.length < 2 || !raw.endsWith("'")) throw new FrontMatterError(`${at}: the quoted value is not closed`);
    return raw.slice(1, -1).replace(/''/g, "'");
  }
  return raw.replace(/\s+#.*$/, '').trim();
}

/** A field as one string (a list joined with ", "), or undefined. */
export function textField(fields: ReadonlyMap<string, FrontValue>, key: string): string | undefined {
  const v = fields.get(key);
  return v === undefined ? undefined : typeof v === 'string' ? v : v.join(', ');
}

/** A field as a list: a list as is, a string split at its commas; empty items dropped. */
export function listField(fields: ReadonlyMap<string, FrontValue>, key: string): string[] {
  const v = fields.get(key);
  if (v === undefined) return [];
  return (typeof v === 'string' ? v.split(',') : [...v]).map((s) => s.trim()).filter(Boolean);
}
