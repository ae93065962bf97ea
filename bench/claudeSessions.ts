// Claude Code session files for the import benchmark (bench/import.ts), shaped like real ones:
// each turn is made of pieces cut from real Claude Code transcripts (a prompt with the notes and
// attachments before its answer, steps that call tools with their results, a closing answer; every
// record as Claude Code wrote it), so line sizes, record kinds and tool outputs follow what real
// files hold. The pieces come from the real sessions beside the repository
// (`../shared/real-sessions/claude-code/`) when that folder is there, else from the project's
// fixtures that Claude Code itself wrote (test/fixtures/import/). A session has 4 to 36 turns, one
// in twenty up to 150, each with about two tool calls; its records are chained anew (one branch),
// with ids and times of its own and the project's folder in place of the recorded one. Laid out as Claude Code keeps them (`projects/<folder>/<uuid>.jsonl`) and kept
// between runs beside the cached stores (bench/cachedStore.ts), under CLAUDE_GENERATOR_VERSION.
import fs from 'node:fs';
import path from 'node:path';
import { cacheRoot } from './cachedStore';
import { random } from './benchInputs';

/** Bumped whenever what this file writes changes, so a changed generator never measures old files. */
export const CLAUDE_GENERATOR_VERSION = 3;

/** Workspaces (Claude Code project folders) the sessions are spread over. */
const PROJECTS = 50;

type Rng = () => number;
type Rec = Record<string, unknown>;

/** A run of records as Claude Code wrote them, and the folder they were recorded in. */
interface RealRecords {
  readonly records: readonly Rec[];
  readonly cwd: string;
}

/**
 * The pieces turns are made of, cut from real transcripts: prompts (a typed prompt and the notes
 * and attachments before the first answer), steps that call tools (an answer's records and the
 * results of its calls) and closing steps (an answer without a call).
 */
export interface TurnPool {
  readonly name: string;
  readonly files: readonly string[];
  readonly prompts: readonly RealRecords[];
  readonly calls: readonly RealRecords[];
  readonly answers: readonly RealRecords[];
  readonly bytes: number;
}

const jsonlUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? jsonlUnder(path.join(dir, e.name)) : e.name.endsWith('.jsonl') ? [path.join(dir, e.name)] : []))
    : [];

const contentOf = (r: Rec): unknown => (typeof r.message === 'object' && r.message !== null ? (r.message as Rec).content : undefined);
const blocksOf = (r: Rec): Rec[] => (Array.isArray(contentOf(r)) ? (contentOf(r) as Rec[]) : []);

/** Whether a record is a prompt a person typed (a turn begins there). */
function isPrompt(r: Rec): boolean {
  if (r.type !== 'user' || r.isMeta === true) return false;
  const content = contentOf(r);
  if (typeof content === 'string') return !content.trimStart().startsWith('<');
  return blocksOf(r).some((b) => b.type === 'text') && !blocksOf(r).some((b) => b.type === 'tool_result');
}

/** Cuts one transcript (its main thread) into prompts and steps. */
function piecesOf(file: string, pool: { prompts: RealRecords[]; calls: RealRecords[]; answers: RealRecords[] }): void {
  let cwd = '';
  let piece: { kind: 'prompt' | 'step'; records: Rec[] } | null = null;
  const close = () => {
    if (!piece || !cwd) return;
    const calls = piece.records.some((r) => r.type === 'assistant' && blocksOf(r).some((b) => b.type === 'tool_use'));
    const to = piece.kind === 'prompt' ? pool.prompts : calls ? pool.calls : pool.answers;
    to.push({ records: piece.records, cwd });
  };
  let lastAnswer = '';
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    let r: Rec;
    try {
      r = JSON.parse(line) as Rec;
    } catch {
      continue;
    }
    if (typeof r !== 'object' || r === null || r.isSidechain === true) continue;
    if (typeof r.cwd === 'string' && r.cwd) cwd = r.cwd;
    const answerId = r.type === 'assistant' ? String((r.message as Rec | undefined)?.id ?? r.uuid) : '';
    if (isPrompt(r)) {
      close();
      piece = { kind: 'prompt', records: [r] };
    } else if (answerId && answerId !== lastAnswer) {
      close();
      piece = { kind: 'step', records: [r] };
    } else piece?.records.push(r);
    if (answerId) lastAnswer = answerId;
  }
  close();
}

/** The pieces of real turns: of the real sessions beside the repository when they are there, else of the project's fixtures the tool wrote. */
export function turnPool(repoRoot: string): TurnPool {
  const real = path.join(repoRoot, '..', 'shared', 'real-sessions', 'claude-code');
  const fixtures = [path.join(repoRoot, 'test', 'fixtures', 'import', 'real', 'claude-code'), path.join(repoRoot, 'test', 'fixtures', 'import', 'claude-code')];
  const fromReal = jsonlUnder(real);
  const files = (fromReal.length ? fromReal : fixtures.flatMap(jsonlUnder)).filter((f) => !path.basename(f).startsWith('agent-'));
  const pieces = { prompts: [] as RealRecords[], calls: [] as RealRecords[], answers: [] as RealRecords[] };
  for (const file of files) piecesOf(file, pieces);
  if (!pieces.prompts.length || !pieces.calls.length || !pieces.answers.length)
    throw new Error(`too few Claude Code turns to build sessions from in ${fromReal.length ? real : fixtures.join(', ')}`);
  const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
  return { name: fromReal.length ? 'real-sessions' : 'fixtures', files, ...pieces, bytes };
}

const between = (next: Rng, low: number, high: number) => low + Math.floor(next() * (high - low + 1));

function uuid(next: Rng): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** Turns a session has: 4 to 36, one in twenty 37 to 150 (the tail of real use). */
function turnCount(next: Rng): number {
  return next() < 0.05 ? between(next, 37, 150) : between(next, 4, 36);
}

/** Writes one session's lines, a turn at a time, to `emit`: real turns, chained anew, in the project's folder. */
class SessionLines {
  private parent: string | null = null;
  private ts: number;
  private turns = 0;
  readonly sessionId: string;

  constructor(
    private readonly next: Rng,
    private readonly pool: TurnPool,
    private readonly cwd: string,
    private readonly emit: (line: string) => void,
    startedAt: number,
  ) {
    this.sessionId = uuid(next);
    this.ts = startedAt;
  }

  /** A turn of real pieces, picked at random: a prompt, 0 to 4 steps that call tools (2 on average), a closing answer; each record with this session's ids, times and folder. */
  turn(): void {
    const pick = (from: readonly RealRecords[]) => from[Math.floor(this.next() * from.length)]!;
    const suffix = `_t${++this.turns}`; // one answer's records share its message id: each turn's are its own
    const pieces = [pick(this.pool.prompts), ...Array.from({ length: between(this.next, 0, 4) }, () => pick(this.pool.calls)), pick(this.pool.answers)];
    for (const piece of pieces) for (const r of piece.records) this.emit(this.restamped(r, suffix).split(piece.cwd).join(this.cwd));
  }

  private restamped(r: Rec, suffix: string): string {
    this.ts += between(this.next, 200, 8_000);
    const record: Rec = { ...r, sessionId: this.sessionId, timestamp: new Date(this.ts).toISOString() };
    if ('uuid' in r) {
      const id = uuid(this.next);
      record.uuid = id;
      record.parentUuid = this.parent;
      this.parent = id;
    }
    if (r.type === 'assistant' && typeof r.message === 'object' && r.message !== null)
      record.message = { ...(r.message as Rec), id: `${String((r.message as Rec).id ?? 'msg')}${suffix}` };
    return JSON.stringify(record);
  }
}

/** Claude Code's name for a project folder: its path with `/` and `.` as `-`. */
const projectSlug = (cwd: string) => cwd.replace(/[/.]/g, '-');

/** A folder of generated Claude Code sessions: what to import (its `projects` folder), its files and their bytes. */
export interface ClaudeSource {
  readonly projects: string;
  readonly files: number;
  readonly bytes: number;
  /** Lines of the sessions, and the median and 90th percentile of their lengths in bytes. */
  readonly lines: { readonly count: number; readonly median: number; readonly p90: number; readonly max: number };
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

/** Line lengths seen while generating, kept as a sample for the percentiles. */
class LineLengths {
  private readonly sample: number[] = [];
  private count = 0;
  private max = 0;

  add(length: number): void {
    this.count++;
    this.max = Math.max(this.max, length);
    if (this.sample.length < 200_000) this.sample.push(length);
  }

  summary(): ClaudeSource['lines'] {
    const sorted = [...this.sample].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return { count: this.count, median: at(0.5), p90: at(0.9), max: this.max };
  }
}

/** `count` sessions over 50 projects, generated once and cached. */
export function cachedSessionFiles(pool: TurnPool, count: number, say: (line: string) => void): ClaudeSource {
  return cached(`${count}-files-from-${pool.name}`, say, (dir) => {
    const projects = path.join(dir, 'projects');
    const lengths = new LineLengths();
    let bytes = 0;
    for (let i = 0; i < count; i++) {
      const next = random(i + 1);
      const cwd = projectCwd(dir, i % PROJECTS);
      const lines: string[] = [];
      const session = new SessionLines(next, pool, cwd, (line) => lines.push(line), Date.UTC(2026, 5, 1) + i * 60_000);
      for (let t = turnCount(next); t > 0; t--) session.turn();
      const folder = path.join(projects, projectSlug(cwd));
      fs.mkdirSync(folder, { recursive: true });
      for (const line of lines) lengths.add(Buffer.byteLength(line));
      const text = `${lines.join('\n')}\n`;
      fs.writeFileSync(path.join(folder, `${session.sessionId}.jsonl`), text);
      bytes += Buffer.byteLength(text);
      if ((i + 1) % 1_000 === 0) say(`  generated ${i + 1}/${count}`);
    }
    return { projects, files: count, bytes, lines: lengths.summary() };
  });
}

/** One session of real turns up to `mb` MB (10^6 bytes), written a few MB at a time; generated once and cached. */
export function cachedLargeSession(pool: TurnPool, mb: number, say: (line: string) => void): ClaudeSource & { readonly file: string } {
  return cached(`large-${mb}mb-from-${pool.name}`, say, (dir) => {
    const cwd = projectCwd(dir, 0);
    const folder = path.join(dir, 'projects', projectSlug(cwd));
    fs.mkdirSync(folder, { recursive: true });
    const partial = path.join(folder, 'partial.jsonl');
    const fd = fs.openSync(partial, 'w');
    const lengths = new LineLengths();
    let pending: string[] = [];
    let pendingBytes = 0;
    let bytes = 0;
    const flush = () => {
      fs.writeSync(fd, pending.join(''));
      bytes += pendingBytes;
      pending = [];
      pendingBytes = 0;
    };
    const emit = (line: string) => {
      const length = Buffer.byteLength(line);
      lengths.add(length);
      pending.push(`${line}\n`);
      pendingBytes += length + 1;
      if (pendingBytes >= 4 << 20) flush();
    };
    const session = new SessionLines(random(7), pool, cwd, emit, Date.UTC(2026, 5, 1));
    while (bytes + pendingBytes < mb * 1e6) session.turn();
    flush();
    fs.closeSync(fd);
    const file = path.join(folder, `${session.sessionId}.jsonl`);
    fs.renameSync(partial, file);
    return { projects: path.join(dir, 'projects'), files: 1, bytes, file, lines: lengths.summary() };
  });
}
