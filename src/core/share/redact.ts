import { closesTurn, isInterruption } from '../import/injected';
import { injectedOf } from '../wire/records';
import { IMAGE_STAND_IN, isImagePart } from './images';
import { applyCuts, sampleOf, type Redaction, type RedactionContext } from './redaction';
import { secretFieldCut } from './secretAssignments';
import { TextRedactor } from './textRedactor';

export type { Redaction, RedactionContext, RedactionKind } from './redaction';
export { knownSecrets } from './knownSecrets';

// A wire log line made fit to leave the machine (docs/reference.md, What leaves the machine):
// every string of the record (and every key) goes through the text rules; a field named as a
// secret's loses its value; image parts become a text part; tool output also loses random-looking
// runs. Numbers, booleans, nulls and the order of keys stay; a line nothing changed is sent as it was.

/** One wire log line (without its newline) redacted: the line to send (valid JSON, one line) or null when the line is not JSON (it is not sent), and what was redacted. Deterministic: the same line and context give the same bytes. */
export function redactLine(line: string, ctx: RedactionContext): { line: string | null; redactions: Redaction[] } {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return { line: null, redactions: [{ kind: 'unreadable-line', where: 'line', sample: sampleOf(line) }] };
  }
  const type = typeof (record as { t?: unknown } | null)?.t === 'string' ? (record as { t: string }).t : '?';
  const walk = new RecordWalk(redactorFor(ctx), type, isToolOutputRecord(record));
  const out = walk.value(record, false);
  return { line: out === record ? line : JSON.stringify(out), redactions: walk.found };
}

const redactors = new WeakMap<RedactionContext, TextRedactor>();

/** The text rules compiled once per context (the same context object for every line of a push). */
function redactorFor(ctx: RedactionContext): TextRedactor {
  let redactor = redactors.get(ctx);
  if (!redactor) redactors.set(ctx, (redactor = new TextRedactor(ctx)));
  return redactor;
}

/**
 * Whether a record holds a tool's output: a `toolResult` message, or context another tool injected
 * that is a command's output (Claude Code's `<local-command-stdout>`, `<bash-stdout>`...). Its
 * message's `content` and `details` then get the high-entropy rule too.
 */
function isToolOutputRecord(record: unknown): boolean {
  const r = record as { t?: unknown; message?: { role?: unknown }; injected?: unknown } | null;
  if (r?.t !== 'message' || typeof r.message !== 'object' || r.message === null) return false;
  if (r.message.role === 'toolResult') return true;
  const kind = injectedOf(r)?.kind;
  return kind !== undefined && closesTurn(kind) && !isInterruption(kind);
}

/** Stands in a path for a key itself (a key rewritten, not the value under it). */
const KEY = Symbol('key');

/** Where a value is: the keys and indexes from the record down. */
type Path = (string | number | typeof KEY)[];

/** One record's walk: its values redacted (the same objects when nothing changed), and what was found. */
class RecordWalk {
  readonly found: Redaction[] = [];
  /** Where the walk is (pushed and popped as it goes down and back: no copy per value). */
  private readonly path: Path = [];

  /** `toolOutput`: the record's message's `content` and `details` are a tool's output. */
  constructor(
    private readonly text: TextRedactor,
    private readonly type: string,
    private readonly toolOutput: boolean,
  ) {}

  /** `node` redacted; `output`: it is (inside) tool output. */
  value(node: unknown, output: boolean): unknown {
    if (typeof node === 'string') return this.string(node, output);
    if (Array.isArray(node)) return this.array(node, output);
    if (typeof node === 'object' && node !== null) return this.object(node as Record<string, unknown>, output);
    return node;
  }

  private string(s: string, output: boolean): string {
    const done = this.text.redact(s, output);
    if (!done) return s;
    for (const cut of done.cuts) this.note(cut.kind, cut.sample);
    return done.text;
  }

  private array(items: readonly unknown[], output: boolean): unknown[] {
    let out: unknown[] | null = null;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      this.path.push(i);
      let next: unknown;
      if (isImagePart(item)) {
        next = IMAGE_STAND_IN;
        this.note('image', 'image…');
      } else next = this.value(item, output);
      this.path.pop();
      if (next !== item) (out ??= [...items])[i] = next;
    }
    return out ?? (items as unknown[]);
  }

  private object(node: Record<string, unknown>, output: boolean): Record<string, unknown> {
    const keys = Object.keys(node);
    let out: [string, unknown][] | null = null;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const item = node[key];
      this.path.push(KEY);
      const newKey = this.string(key, false);
      this.path.pop();
      const inOutput = output || this.outputBegins(key);
      this.path.push(key);
      const next = this.field(key, item, inOutput);
      this.path.pop();
      if (!out && (newKey !== key || next !== item)) out = keys.slice(0, i).map((k): [string, unknown] => [k, node[k]]);
      out?.push([newKey, next]);
    }
    return out ? objectOf(out) : node;
  }

  /** Whether the field `key` of the object the walk is in is where tool output begins: `message.content`, `message.details`. */
  private outputBegins(key: string): boolean {
    return this.toolOutput && this.path.length === 1 && this.path[0] === 'message' && (key === 'content' || key === 'details');
  }

  /** A field's value: all of it when its name is a secret's, else the value walked. */
  private field(key: string, item: unknown, output: boolean): unknown {
    if (typeof item === 'string') {
      const cut = secretFieldCut(key, item);
      if (cut) {
        this.note(cut.kind, cut.sample);
        return applyCuts(item, [cut]);
      }
    }
    return this.value(item, output);
  }

  private note(kind: Redaction['kind'], sample: string): void {
    this.found.push({ kind, where: `${this.type} ${pathText(this.path)}`, sample });
  }
}

/** `message.content[2].text`; a key that is not a plain name shows as `*` (it may be a path or worse), a key itself as `(key)`. */
function pathText(path: Readonly<Path>): string {
  return path
    .map((step, i) =>
      typeof step === 'number' ? `[${step}]` : step === KEY ? '(key)' : `${i ? '.' : ''}${/^[A-Za-z_$][\w$-]{0,63}$/.test(step) ? step : '*'}`,
    )
    .join('');
}

/** An object of `entries` in their order; `__proto__` stays a key (never the prototype). */
function objectOf(entries: readonly [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}
