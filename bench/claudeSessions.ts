// Claude Code session files for the import benchmark (bench/import.ts), laid out as Claude Code
// keeps them: `<root>/projects/<cwd with / and . as ->/<session uuid>.jsonl`, one record a line,
// each record's parentUuid the one before it. A turn is a prompt, one to three tool calls (Read,
// Bash, Grep), each answered by a tool result of 1 to 20 KB of file text or command output, and a
// closing answer; every answer carries its usage. Kept between runs beside the cached stores
// (bench/cachedStore.ts), under CLAUDE_GENERATOR_VERSION.
import fs from 'node:fs';
import path from 'node:path';
import { cacheRoot } from './cachedStore';
import { random } from './benchInputs';

/** Bumped whenever what this file writes changes, so a changed generator never measures old files. */
export const CLAUDE_GENERATOR_VERSION = 1;

/** Workspaces (Claude Code project folders) the small sessions are spread over. */
const PROJECTS = 50;

/** Lines of code a Read result is made of (with Claude Code's `cat -n`-like numbering). */
const CODE = [
  'export async function importSessions(store: SessionStore, options: ImportOptions): Promise<ImportOutcome[]> {',
  '  const sources = findSources(options);',
  '  if (!sources.length) throw new Error(`no sessions found under "${options.paths.join(\', \')}"`);',
  '  for (const { format, files } of sources) {',
  '    const report = new FileReport(); // what the file left out, by reason',
  '      outcomes.push({ tool: format.tool, file, action: "skipped", bytes: stat.size });',
  '  }',
  '  return outcomes.filter((o) => o.action !== "unchanged");',
  '}',
  "import { createHash } from 'node:crypto';",
  '',
  '  // A torn last line is the tool still writing it: skip it, the next import reads it whole.',
  '\tconst line = buffer.subarray(start, end).toString("utf8").trim();',
];

/** Lines a Bash or Grep result is made of. */
const OUTPUT = [
  '> braid@0.1.0 test',
  '  ✔ imports a session with two branches (41ms)',
  '  ✖ appends what the source added since the last import',
  '    AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 3 !== 2',
  '      at Context.<anonymous> (test/unit/import.test.ts:214:12)',
  'src/core/import/importer.ts:131:  const scanned: Array<{ session: ScannedSession; report: FileReport }> = [];',
  'src/core/import/claudeCode.ts:58:    noteRecord(scan, r, line.offset, line.length, report);',
  '  42 passing (3s)',
];

const WORDS =
  'the importer reads each line parses the record keeps its offset and writes the turn once the answer ends so a session of any size streams through'.split(
    ' ',
  );

type Rng = () => number;

const between = (next: Rng, low: number, high: number) => low + Math.floor(next() * (high - low + 1));

function uuid(next: Rng): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** An id as Anthropic's API makes them: `msg_01…`, `toolu_01…`. */
function apiId(prefix: string, next: Rng): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `${prefix}_01${Array.from({ length: 22 }, () => chars[Math.floor(next() * chars.length)]).join('')}`;
}

function prose(next: Rng, chars: number): string {
  const out: string[] = [];
  for (let length = 0; length < chars;) {
    const word = WORDS[Math.floor(next() * WORDS.length)]!;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ');
}

/** About `bytes` of lines from `lines`, numbered as Claude Code's Read numbers a file's lines. */
function fileText(next: Rng, lines: readonly string[], bytes: number): string {
  const out: string[] = [];
  for (let n = 1, length = 0; length < bytes; n++) {
    const line = `${String(n).padStart(6)}→${lines[Math.floor(next() * lines.length)]!}`;
    out.push(line);
    length += line.length + 1;
  }
  return out.join('\n');
}

/** One tool call and the text of its result. */
function toolCall(next: Rng, cwd: string, n: number): { name: string; input: object; result: string } {
  const bytes = between(next, 1024, 20 * 1024);
  const file = `${cwd}/src/core/module${n % 40}.ts`;
  switch (n % 3) {
    case 0:
      return { name: 'Read', input: { file_path: file }, result: fileText(next, CODE, bytes) };
    case 1:
      return { name: 'Bash', input: { command: 'npm test -- --grep import', description: 'Run the import tests' }, result: fileText(next, OUTPUT, bytes) };
    default:
      return { name: 'Grep', input: { pattern: 'importSessions', path: `${cwd}/src`, output_mode: 'content' }, result: fileText(next, OUTPUT, bytes) };
  }
}

/** Writes one session's records as lines, a turn at a time, to `emit`. */
class SessionLines {
  private parent: string | null = null;
  private ts: number;
  private calls = 0;
  private cacheRead = 12_000;
  readonly sessionId: string;

  constructor(
    private readonly next: Rng,
    private readonly cwd: string,
    private readonly emit: (line: string) => void,
    startedAt: number,
  ) {
    this.sessionId = uuid(next);
    this.ts = startedAt;
  }

  private record(type: 'user' | 'assistant', message: object, extra: object = {}): void {
    const id = uuid(this.next);
    this.ts += between(this.next, 500, 20_000);
    const base = {
      parentUuid: this.parent,
      isSidechain: false,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: '2.0.14',
      gitBranch: 'main',
    };
    this.emit(JSON.stringify({ ...base, type, message, ...extra, uuid: id, timestamp: new Date(this.ts).toISOString() }));
    this.parent = id;
  }

  private answer(content: object[], stop: 'tool_use' | 'end_turn'): void {
    this.cacheRead += between(this.next, 500, 6_000);
    const usage = {
      input_tokens: between(this.next, 3, 12),
      cache_creation_input_tokens: between(this.next, 200, 4_000),
      cache_read_input_tokens: this.cacheRead,
      output_tokens: between(this.next, 40, 900),
    };
    const message = {
      id: apiId('msg', this.next),
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage,
    };
    this.record('assistant', message, { requestId: apiId('req', this.next) });
  }

  /** A prompt, 1 to 3 tool calls with their results, and the closing answer. */
  turn(): void {
    this.record('user', { role: 'user', content: prose(this.next, between(this.next, 80, 600)) });
    for (let i = between(this.next, 1, 3); i > 0; i--) {
      const call = toolCall(this.next, this.cwd, this.calls++);
      const id = apiId('toolu', this.next);
      this.answer(
        [
          { type: 'text', text: prose(this.next, between(this.next, 40, 300)) },
          { type: 'tool_use', id, name: call.name, input: call.input },
        ],
        'tool_use',
      );
      this.record('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: call.result }] });
    }
    this.answer([{ type: 'text', text: prose(this.next, between(this.next, 200, 1_500)) }], 'end_turn');
  }
}

/** Claude Code's name for a project folder: its path with `/` and `.` as `-`. */
const projectSlug = (cwd: string) => cwd.replace(/[/.]/g, '-');

/** A folder of generated Claude Code sessions: what to import (its `projects` folder), its files and their bytes. */
export interface ClaudeSource {
  readonly projects: string;
  readonly files: number;
  readonly bytes: number;
}

/** What `generate` made in the cache folder `name`, generated first when it is not there yet. */
function cached<T extends ClaudeSource>(name: string, say: (line: string) => void, generate: (dir: string) => T): T {
  const dir = path.join(cacheRoot(), `claude-code-g${CLAUDE_GENERATOR_VERSION}`, name);
  const done = path.join(dir, 'generated.json');
  if (fs.existsSync(done)) return JSON.parse(fs.readFileSync(done, 'utf8')) as T;
  fs.rmSync(dir, { recursive: true, force: true });
  const started = Date.now();
  say(`generating Claude Code sessions (${name}) in ${dir}`);
  const source = generate(dir);
  fs.writeFileSync(done, JSON.stringify(source));
  say(`  ${source.files} files, ${(source.bytes / 1e6).toFixed(0)} MB, generated in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return source;
}

/** The working folder of project `n` (made, so the imported sessions' workspaces exist). */
function projectCwd(dir: string, n: number): string {
  const cwd = path.join(dir, 'workspaces', `project-${n}`);
  fs.mkdirSync(cwd, { recursive: true });
  return cwd;
}

/** `count` sessions of 1 to 3 turns over 50 projects (about 33 KB each), generated once and cached. */
export function cachedSessionFiles(count: number, say: (line: string) => void): ClaudeSource {
  return cached(`${count}-files`, say, (dir) => {
    const projects = path.join(dir, 'projects');
    let bytes = 0;
    for (let i = 0; i < count; i++) {
      const next = random(i + 1);
      const cwd = projectCwd(dir, i % PROJECTS);
      const lines: string[] = [];
      const session = new SessionLines(next, cwd, (line) => lines.push(line), Date.UTC(2026, 5, 1) + i * 60_000);
      for (let t = between(next, 1, 3); t > 0; t--) session.turn();
      const folder = path.join(projects, projectSlug(cwd));
      fs.mkdirSync(folder, { recursive: true });
      const text = `${lines.join('\n')}\n`;
      fs.writeFileSync(path.join(folder, `${session.sessionId}.jsonl`), text);
      bytes += Buffer.byteLength(text);
      if ((i + 1) % 2_000 === 0) say(`  generated ${i + 1}/${count}`);
    }
    return { projects, files: count, bytes };
  });
}

/** One session of turns up to `mb` MB (10^6 bytes), written a few MB at a time; generated once and cached. */
export function cachedLargeSession(mb: number, say: (line: string) => void): ClaudeSource & { readonly file: string } {
  return cached(`large-${mb}mb`, say, (dir) => {
    const cwd = projectCwd(dir, 0);
    const folder = path.join(dir, 'projects', projectSlug(cwd));
    fs.mkdirSync(folder, { recursive: true });
    const partial = path.join(folder, 'partial.jsonl');
    const fd = fs.openSync(partial, 'w');
    let pending: string[] = [];
    let pendingBytes = 0;
    let bytes = 0;
    const flush = () => {
      fs.writeSync(fd, pending.join(''));
      bytes += pendingBytes;
      pending = [];
      pendingBytes = 0;
    };
    const session = new SessionLines(
      random(7),
      cwd,
      (line) => {
        pending.push(`${line}\n`);
        pendingBytes += Buffer.byteLength(line) + 1;
        if (pendingBytes >= 4 << 20) flush();
      },
      Date.UTC(2026, 5, 1),
    );
    while (bytes + pendingBytes < mb * 1e6) session.turn();
    flush();
    fs.closeSync(fd);
    const file = path.join(folder, `${session.sessionId}.jsonl`);
    fs.renameSync(partial, file);
    return { projects: path.join(dir, 'projects'), files: 1, bytes, file };
  });
}
