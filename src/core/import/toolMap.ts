import path from 'node:path';

/** A tool call as Braid keeps it: one of Braid's tools with its arguments, or the source's own call kept verbatim. */
export interface MappedCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

type Args = Record<string, unknown>;
type Mapping = (args: Args, cwd: string) => Args | null;

const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

/** Drops the keys whose value is undefined (Braid's schemas have optional keys, never null ones). */
function defined(args: Args): Args {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}

/** A path as Braid's tools take it: relative to the workspace folder when inside it. */
export function workspacePath(p: string, cwd: string): string {
  if (!cwd || !path.isAbsolute(p)) return p;
  const relative = path.relative(cwd, p);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : relative === '' ? '.' : p;
}

const need = (x: string | undefined): x is string => typeof x === 'string';

const read =
  (pathKey: string): Mapping =>
  (a, cwd) => {
    const p = str(a[pathKey]);
    return need(p) ? defined({ path: workspacePath(p, cwd), offset: num(a.offset), limit: num(a.limit) }) : null;
  };

const write =
  (pathKey: string): Mapping =>
  (a, cwd) => {
    const p = str(a[pathKey]);
    const content = str(a.content);
    return need(p) && need(content) ? { path: workspacePath(p, cwd), content } : null;
  };

const edit =
  (pathKey: string, oldKey: string, newKey: string, allKey: string): Mapping =>
  (a, cwd) => {
    const p = str(a[pathKey]);
    const oldText = str(a[oldKey]);
    const newText = str(a[newKey]);
    if (!need(p) || !need(oldText) || !need(newText)) return null;
    return defined({ path: workspacePath(p, cwd), old_text: oldText, new_text: newText, replace_all: a[allKey] === true ? true : undefined });
  };

const bash =
  (timeoutKey: string, scale: number): Mapping =>
  (a) => {
    const command = str(a.command);
    const timeout = num(a[timeoutKey]);
    return need(command) ? defined({ command, timeout_ms: timeout === undefined ? undefined : Math.round(timeout * scale) }) : null;
  };

const search =
  (kind: 'glob' | 'grep', includeKey: string): Mapping =>
  (a, cwd) => {
    const pattern = str(a.pattern);
    if (!need(pattern)) return null;
    const p = str(a.path);
    const where = p === undefined ? undefined : workspacePath(p, cwd);
    return kind === 'glob' ? defined({ pattern, path: where }) : defined({ pattern, path: where, include: str(a[includeKey]) });
  };

const task: Mapping = (a) => {
  const description = str(a.description) ?? '';
  const prompt = str(a.prompt);
  return need(prompt) ? { description, prompt } : null;
};

const list: Mapping = (a, cwd) => ({ path: workspacePath(str(a.path) ?? '.', cwd) });

/** Each source's tools that are Braid's tools under other names (docs/reference.md, Imported sessions). */
const MAPPINGS: Record<string, Record<string, [string, Mapping]>> = {
  'claude-code': {
    Read: ['read_file', read('file_path')],
    Write: ['write_file', write('file_path')],
    Edit: ['edit_file', edit('file_path', 'old_string', 'new_string', 'replace_all')],
    Bash: ['bash', bash('timeout', 1)],
    Glob: ['glob', search('glob', '')],
    Grep: ['grep', search('grep', 'glob')],
    Task: ['task', task],
    Agent: ['task', task],
    LS: ['list_dir', list],
  },
  pi: {
    read: ['read_file', read('path')],
    write: ['write_file', write('path')],
    edit: ['edit_file', edit('path', 'oldText', 'newText', 'replaceAll')],
    bash: ['bash', bash('timeout', 1000)],
    ls: ['list_dir', list],
    grep: ['grep', search('grep', 'glob')],
  },
  opencode: {
    read: ['read_file', read('filePath')],
    write: ['write_file', write('filePath')],
    edit: ['edit_file', edit('filePath', 'oldString', 'newString', 'replaceAll')],
    bash: ['bash', bash('timeout', 1)],
    glob: ['glob', search('glob', '')],
    grep: ['grep', search('grep', 'include')],
    task: ['task', task],
    list: ['list_dir', list],
  },
  codex: {
    shell: ['bash', (a) => codexCommand(a.command)],
    shell_command: ['bash', (a) => codexCommand(a.command)],
    exec_command: ['bash', (a) => codexCommand(a.cmd)],
    container_exec: ['bash', (a) => codexCommand(a.command)],
    apply_patch: ['write_file', (a, cwd) => addedFile(str(a.input) ?? str(a.patch) ?? '', cwd)],
  },
};

/**
 * Maps a source's tool call to Braid's tool of the same meaning with Braid's argument names
 * (paths made relative to the workspace folder); a tool Braid has not, or arguments that do not
 * fit, keep the source's name and arguments as they were.
 */
export function mapToolCall(tool: string, name: string, args: Args, cwd: string): MappedCall {
  const entry = MAPPINGS[tool]?.[name];
  const mapped = entry ? entry[1](args, cwd) : null;
  return entry && mapped ? { name: entry[0], arguments: mapped } : { name, arguments: args };
}

/** Codex runs a command as an argument list, usually `bash -lc <script>`: the script is Braid's command line. */
function codexCommand(command: unknown): Args | null {
  if (typeof command === 'string') return { command };
  if (!Array.isArray(command) || !command.every((c) => typeof c === 'string')) return null;
  const parts = command as string[];
  const shell = parts.length === 3 && /(^|\/)(ba|z)?sh$/.test(parts[0] ?? '') && /^-l?c$/.test(parts[1] ?? '');
  return { command: shell ? parts[2] : parts.map(shellQuote).join(' ') };
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A patch that only adds one file is Braid's write_file of it; any other patch stays Codex's own apply_patch. */
function addedFile(patch: string, cwd: string): Args | null {
  const lines = patch.split('\n');
  const files = lines.filter((l) => /^\*\*\* (Add|Update|Delete) File: /.test(l));
  const added = /^\*\*\* Add File: (.+)$/.exec(files[0] ?? '');
  if (files.length !== 1 || !added?.[1]) return null;
  const start = lines.indexOf(files[0]!) + 1;
  const body = lines.slice(start).filter((l) => !l.startsWith('*** End Patch'));
  if (!body.every((l) => l.startsWith('+') || l === '')) return null;
  const content = body
    .filter((l) => l.startsWith('+'))
    .map((l) => l.slice(1))
    .join('\n');
  return { path: workspacePath(added[1].trim(), cwd), content: content ? `${content}\n` : '' };
}
