// What the demo agent makes of a prompt: a few recognisable requests, found by simple patterns.
// Anything else is answered in words (a short FAQ about Braid, or what the demo can show).

/** A request the demo agent recognises. `path` is a file named in the prompt, when there is one. */
export type Intent =
  | { readonly kind: 'read'; readonly path?: string; readonly hint?: string }
  | { readonly kind: 'create'; readonly path: string; readonly content?: string }
  | {
      readonly kind: 'edit';
      readonly path?: string;
      readonly hint?: string;
      readonly replace?: { readonly from: string; readonly to: string };
      readonly insert?: string;
    }
  | { readonly kind: 'run'; readonly command?: string; readonly tests?: boolean }
  | { readonly kind: 'subagent'; readonly task: string }
  | { readonly kind: 'list' }
  | { readonly kind: 'long' }
  | { readonly kind: 'chat' };

/** Files named without an extension that the demo finds by listing the folder (README.md, say). */
const BARE_NAMES = /\b(README|LICENSE|Makefile|Dockerfile|CHANGELOG|CONTRIBUTING)\b/i;

/** A file path named in the text: in backticks or quotes, or a word with an extension or a slash. */
export function namedPath(text: string): string | undefined {
  const quoted = /[`"'“‘]([\w./-]+\.[A-Za-z0-9]{1,8})[`"'”’]/.exec(text)?.[1];
  if (quoted) return quoted;
  const word = /(?:^|[\s(])((?:\.{0,2}\/)?[\w-]+(?:[./][\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s),:;!?]|\.(?:\s|$))/.exec(text)?.[1];
  return word && !/^(?:e\.g|i\.e|etc)$/i.test(word) ? word : undefined;
}

/** A bare name such as README (found by listing the folder first), spelt the usual way. */
function bareName(text: string): string | undefined {
  const name = BARE_NAMES.exec(text)?.[1];
  return name && (/^(makefile|dockerfile)$/i.test(name) ? `${name[0]!.toUpperCase()}${name.slice(1).toLowerCase()}` : name.toUpperCase());
}

/** Text in quotes after "with", "containing", "saying", "add": what goes into the file. */
function quotedContent(text: string): string | undefined {
  return /\b(?:with|containing|saying|says|reading|text|add|append|write)\s*:?\s*["“'`]([^"”'`]+)["”'`]/i.exec(text)?.[1];
}

/** "change 'a' to 'b'", "replace "a" with "b"". */
function replacement(text: string): { from: string; to: string } | undefined {
  const m = /\b(?:change|replace|rename)\s+["“'`]([^"”'`]+)["”'`]\s+(?:to|with|by|into)\s+["“'`]([^"”'`]*)["”'`]/i.exec(text);
  return m ? { from: m[1]!, to: m[2]! } : undefined;
}

/** The command of "run `npm test`", "run ls -la", "execute git status". */
function commandOf(text: string): string | undefined {
  const ticked = /`([^`]+)`/.exec(text)?.[1];
  if (ticked) return ticked.trim();
  const rest = /\b(?:run|execute)\s+(?:the\s+command\s+)?(.+)$/i
    .exec(text)?.[1]
    ?.trim()
    .replace(/\s+(?:for me|please)[.!]?$/i, '')
    .replace(/[.!]$/, '');
  if (!rest || /^(?:a|some|any)\s+(?:shell\s+)?command\b|^something\b/i.test(rest)) return undefined;
  return rest;
}

/** Recognises what the user asks for. */
export function recognise(text: string): Intent {
  const t = text.trim();
  const path = namedPath(t);
  const hint = path ? undefined : bareName(t);
  if (/\bsub-?agents?\b/i.test(t)) return { kind: 'subagent', task: t };
  if (/^(?:please\s+|can you\s+|could you\s+)?(?:run|execute)\b/i.test(t) || /\brun (?:the )?tests?\b/i.test(t)) {
    const command = commandOf(t);
    if (/^(?:the\s+)?tests?\b/i.test(command ?? '') || (!command && /\btests?\b/i.test(t))) return { kind: 'run', tests: true };
    return command ? { kind: 'run', command } : { kind: 'run' };
  }
  // A file deleted the way an agent does it: a command, which asks first and which a rewind undoes.
  if (path && /\b(?:delete|remove)\b/i.test(t)) return { kind: 'run', command: `rm -- ${path}` };
  const replace = replacement(t);
  const creates = /\b(?:create|make|write|generate)\b/i.test(t) || /\b(?:add|new)\b.*\b(?:a|new)\s+file\b/i.test(t);
  if (!replace && creates && (path || /\bfile\b/i.test(t))) return { kind: 'create', path: path ?? 'hello.txt', ...optional('content', quotedContent(t)) };
  if ((replace || /\b(?:edit|change|update|modify|fix|append|replace|rename|add)\b/i.test(t)) && (path || hint)) {
    return { kind: 'edit', ...optional('path', path), ...optional('hint', hint), ...optional('replace', replace), ...optional('insert', quotedContent(t)) };
  }
  if (path || hint) return { kind: 'read', ...optional('path', path), ...optional('hint', hint) };
  if (
    /\b(?:list|ls)\b|\bwhat(?:'s| is)? in (?:this|the) (?:folder|workspace|project|directory)\b|\b(?:which|what) files\b|\bshow (?:me )?(?:the )?files\b/i.test(
      t,
    )
  )
    return { kind: 'list' };
  if (/\blong\b|\bin (?:great )?detail\b|\bdetailed\b|\bessay\b|\bstory\b|\btour\b/i.test(t)) return { kind: 'long' };
  return { kind: 'chat' };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
