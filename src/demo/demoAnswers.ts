// The demo agent's answers after its tools came back: built from what the tools returned (a
// file's headings, a command's output, a folder's entries), so the answer is about the workspace.

/** The line that labels every answer the demo builds from the workspace. */
export const DEMO_FOOTER = "_Braid's demo agent wrote this with a script, not a language model._";

const LANGUAGES: Record<string, string> = {
  md: 'Markdown',
  ts: 'TypeScript',
  tsx: 'TypeScript',
  js: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  jsx: 'JavaScript',
  py: 'Python',
  json: 'JSON',
  sh: 'shell script',
  go: 'Go',
  rs: 'Rust',
  java: 'Java',
  c: 'C',
  h: 'C',
  cpp: 'C++',
  cs: 'C#',
  rb: 'Ruby',
  php: 'PHP',
  html: 'HTML',
  css: 'CSS',
  yml: 'YAML',
  yaml: 'YAML',
  toml: 'TOML',
  txt: 'text',
};

const extension = (path: string) => /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
/** A count with its noun: "1 line", "2 lines" (the demo imports nothing of Braid's core). */
export const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The lines of a read_file result (`     1\tline`), or undefined when the result is not a file's text (an error). */
export function numberedLines(result: string): string[] | undefined {
  const rows = result.split('\n');
  if (!/^\s*1\t/.test(rows[0] ?? '')) return undefined;
  return rows.flatMap((row) => {
    const m = /^\s*\d+\t(.*)$/.exec(row);
    return m ? [m[1]!] : [];
  });
}

/** Entries of a list_dir result (folders end with "/"). */
export function folderEntries(result: string): string[] {
  return result
    .split('\n')
    .map((e) => e.trim())
    .filter((e) => e && !e.startsWith('[') && e !== '(empty folder)');
}

function markdownSummary(lines: readonly string[]): string[] {
  const title = lines.find((l) => /^#\s/.test(l))?.replace(/^#\s+/, '');
  const sections = lines
    .filter((l) => /^#{2,3}\s/.test(l))
    .map((l) => l.replace(/^#+\s+/, ''))
    .slice(0, 8);
  const start = lines.findIndex((l) => l.trim() && !/^(#|<|!\[|```|\[!)/.test(l.trim()));
  const paragraph: string[] = [];
  for (let i = Math.max(start, 0); start >= 0 && i < lines.length && lines[i]!.trim(); i++) paragraph.push(lines[i]!.trim());
  const opening = paragraph.join(' ');
  const out: string[] = [];
  if (title) out.push(`It is titled **${title}**.`);
  if (opening) out.push(`It begins:\n\n> ${opening.length > 320 ? `${opening.slice(0, 320)}…` : opening}`);
  if (sections.length) out.push(`Its sections:\n\n${sections.map((s) => `- ${s}`).join('\n')}`);
  return out;
}

function jsonSummary(path: string, lines: readonly string[]): string[] {
  try {
    const value = JSON.parse(lines.join('\n')) as Record<string, unknown>;
    if (/package\.json$/.test(path)) {
      const scripts = Object.keys((value.scripts ?? {}) as object);
      return [
        `It describes the npm package **${String(value.name ?? '(unnamed)')}**${value.description ? `: ${String(value.description)}` : ''}.`,
        ...(scripts.length ? [`Its scripts: ${scripts.map((s) => `\`${s}\``).join(', ')}.`] : []),
      ];
    }
    return [
      `Its top-level keys: ${Object.keys(value)
        .slice(0, 12)
        .map((k) => `\`${k}\``)
        .join(', ')}.`,
    ];
  } catch {
    return ['It does not parse as JSON as a whole (perhaps only part of it was read).'];
  }
}

function codeSummary(lines: readonly string[]): string[] {
  const names = lines.flatMap((l) => {
    const m = /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class|interface|type|const|let|def|fn|func|struct|enum)\s+([A-Za-z_$][\w$]*)/.exec(
      l,
    );
    return m ? [m[1]!] : [];
  });
  if (names.length)
    return [
      `It declares ${names
        .slice(0, 12)
        .map((n) => `\`${n}\``)
        .join(', ')}${names.length > 12 ? ` and ${names.length - 12} more` : ''}.`,
    ];
  return [`It begins:\n\n\`\`\`\n${lines.slice(0, 8).join('\n')}\n\`\`\``];
}

/** An explanation of a file from its read_file result. */
export function describeFile(path: string, result: string): string {
  const lines = numberedLines(result);
  if (!lines) return `I could not read \`${path}\`: ${result.trim()}\n\n${DEMO_FOOTER}`;
  const ext = extension(path);
  const language = LANGUAGES[ext] ?? 'text';
  const more = /\[(\d+) more lines/.exec(result)?.[1];
  const size = `${plural(lines.length + Number(more ?? 0), 'line')} of ${language}`;
  const body = ext === 'md' || /readme/i.test(path) ? markdownSummary(lines) : ext === 'json' ? jsonSummary(path, lines) : codeSummary(lines);
  return [`\`${path}\` is ${size}.`, ...body, DEMO_FOOTER].join('\n\n');
}

/** What the workspace's top folder looks like, from a list_dir result. */
export function describeFolder(result: string): string {
  // Git's own folder is no part of the project a user asks about.
  const entries = folderEntries(result).filter((e) => e !== '.git/');
  if (entries.length === 0) return "The workspace's top folder is empty.";
  const folders = entries.filter((e) => e.endsWith('/'));
  const files = entries.filter((e) => !e.endsWith('/'));
  const kinds: Array<[RegExp, string]> = [
    [/^package\.json$/, 'a Node.js project'],
    [/^pyproject\.toml$|^setup\.py$|^requirements\.txt$/, 'a Python project'],
    [/^Cargo\.toml$/, 'a Rust crate'],
    [/^go\.mod$/, 'a Go module'],
    [/^pom\.xml$|^build\.gradle/, 'a Java project'],
  ];
  const kind = kinds.find(([pattern]) => files.some((f) => pattern.test(f)))?.[1];
  const shown = (list: string[]) =>
    list
      .slice(0, 15)
      .map((e) => `\`${e}\``)
      .join(', ') + (list.length > 15 ? `, and ${list.length - 15} more` : '');
  return [
    `The top folder holds ${plural(files.length, 'file')} and ${plural(folders.length, 'folder')}${kind ? `; it looks like ${kind}` : ''}.`,
    ...(files.length ? [`Files: ${shown(files)}.`] : []),
    ...(folders.length ? [`Folders: ${shown(folders)}.`] : []),
  ].join('\n\n');
}

/** The answer after write_file: created, replaced, denied or failed. */
export function afterWrite(path: string, result: string): string {
  if (/^(Created|Replaced)\b/.test(result)) {
    return [
      `${result.trim()} The card above shows the change.`,
      'To take it back, hover over your prompt and choose **Rewind** (or type `/rewind`), then **Rewind and Restore Files**: the file goes away with the turn, and **Undo** brings both back.',
      DEMO_FOOTER,
    ].join('\n\n');
  }
  return `${deniedOrFailed(result, `\`${path}\` was not written`)}\n\n${DEMO_FOOTER}`;
}

/** The answer after edit_file. */
export function afterEdit(path: string, result: string): string {
  if (/^Edited\b/.test(result))
    return `${result.trim()} The diff is in the card above; **Rewind** with files puts \`${path}\` back as it was.\n\n${DEMO_FOOTER}`;
  return `${deniedOrFailed(result, `\`${path}\` was not changed`)}\n\n${DEMO_FOOTER}`;
}

/** The answer after bash: the exit code and the first lines of the output. */
export function afterCommand(command: string, result: string): string {
  if (/^The user denied/.test(result) || /not trusted/.test(result)) return `${deniedOrFailed(result, 'nothing ran')}\n\n${DEMO_FOOTER}`;
  const [header = '', ...output] = result.split('\n');
  const shown = output.slice(0, 20);
  const rest = output.length - shown.length;
  return [
    `\`${command}\` ran in the workspace folder. ${header}`,
    `\`\`\`text\n${shown.join('\n') || '(no output)'}\n\`\`\`${rest > 0 ? `\n\n(${plural(rest, 'more line')} in the card above)` : ''}`,
    DEMO_FOOTER,
  ].join('\n\n');
}

function deniedOrFailed(result: string, consequence: string): string {
  if (/^The user denied/.test(result)) return `You denied it, so ${consequence}. Nothing else happened.`;
  return `That did not work, so ${consequence}: ${result.trim()}`;
}

/** A test command for the project whose top folder holds these entries, if one is recognised. */
export function testCommand(entries: readonly string[]): string | undefined {
  if (entries.includes('package.json')) return 'npm test';
  if (entries.includes('Cargo.toml')) return 'cargo test';
  if (entries.includes('go.mod')) return 'go test ./...';
  if (entries.includes('pyproject.toml') || entries.includes('setup.py') || entries.includes('tests/')) return 'python3 -m pytest -q';
  if (entries.includes('Makefile')) return 'make test';
  return undefined;
}

/** Content for a file the user asked to create without saying what goes in it. */
export function defaultContent(path: string): string {
  const name = path.split('/').pop() ?? path;
  switch (extension(path)) {
    case 'md':
      return `# ${name.replace(/\.md$/i, '')}\n\nWritten by Braid's demo agent.\n`;
    case 'js':
    case 'mjs':
    case 'ts':
      return "console.log('Hello from Braid!');\n";
    case 'py':
      return 'print("Hello from Braid!")\n';
    case 'sh':
      return '#!/bin/sh\necho "Hello from Braid!"\n';
    case 'json':
      return '{\n  "greeting": "Hello from Braid!"\n}\n';
    case 'html':
      return '<!doctype html>\n<title>Hello</title>\n<p>Hello from Braid!</p>\n';
    default:
      return 'Hello from Braid!\n';
  }
}
