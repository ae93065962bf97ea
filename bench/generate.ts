import fs from 'node:fs';
import path from 'node:path';
import { newMessageId, newSessionId } from '../src/core/ids';
import { sessionFolderLayout, StoreLayout } from '../src/core/format/layout';
import { storedPart, type StoredState } from '../src/core/format/sessionState';
import { WireLogWriter } from '../src/core/wire/wireLog';
import type { NewRecord } from '../src/core/wire/records';
import { workspaceKey } from '../src/core/workspace/workspaceKey';
import { random } from './benchInputs';

/**
 * Bumped whenever what generateSessions writes changes: cached stores (bench/cachedStore.ts) are
 * kept under this version, so a changed generator never measures an old store.
 */
export const GENERATOR_VERSION = 4;

const WORDS = 'parser index webview fork rewind session cache token stream compile build test deploy refactor schema query render layout widget config'.split(
  ' ',
);

/** Words of titles: none of them is a word of the prompts, and titles hold no digits, so a search of the prompts' words finds what the prompts hold. */
const TITLE_WORDS = 'tidy draft notes plan review errand sketch outline polish chores'.split(' ');

/** Session `i`'s title: "Task" and its number spelled in letters (b = 1), then three title words. */
export function titleOf(i: number): string {
  const letters = String(i).replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!);
  return `Task ${letters}: ${[0, 1, 2].map((k) => TITLE_WORDS[(i * 7 + k * 3) % TITLE_WORDS.length]).join(' ')}`;
}

export const CODE_LINES = [
  'export function handle(request: Request, options: Options): Response {',
  '  const parsed = parseHeaders(request.headers, options.strict);',
  '  if (!parsed.ok) throw new Error(`bad header: ${parsed.reason}`);',
  '  for (const entry of parsed.entries) cache.set(entry.key, entry.value);',
  '  return render(layout, { widgets: parsed.widgets, query: request.query });',
  '}',
  "import { compile, schema } from './build/compiler';",
  '  // The stream ends when the last token arrives; flush what is buffered.',
  '  await stream.flush();',
  '  const session = await store.open(id, { workspace: config.root });',
];

export const OUTPUT_LINES = [
  '> braid@0.1.0 test',
  'PASS test/unit/parser.test.ts (1.2 s)',
  'PASS test/unit/index.test.ts',
  'FAIL test/unit/webview.test.ts',
  '  expected 3 rows, got 2 (render layout after fork)',
  'Tests: 1 failed, 41 passed, 42 total',
  'src/core/session.ts:120:7 - error TS2345: Argument of type string is not assignable',
];

function sentence(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[(seed * 31 + i * 17) % WORDS.length]!);
  return out.join(' ');
}

/** About `chars` characters of prose from the word list, varied by `next`. */
export function prose(next: () => number, chars: number): string {
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = WORDS[Math.floor(next() * WORDS.length)]!;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ');
}

/** About `bytes` of lines drawn from `lines`, numbered like a file or a command's output. */
export function textBlock(next: () => number, lines: readonly string[], bytes: number): string {
  const out: string[] = [];
  let length = 0;
  for (let n = 1; length < bytes; n++) {
    const line = `${n}\t${lines[Math.floor(next() * lines.length)]!}`;
    out.push(line);
    length += line.length + 1;
  }
  return out.join('\n');
}

const USAGE = {
  input: 1200,
  output: 300,
  cacheRead: 800,
  cacheWrite: 0,
  totalTokens: 2300,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.002 },
};

export function assistant(ts: number, content: unknown[], stopReason: 'stop' | 'toolUse'): object {
  return { role: 'assistant', api: 'openai-completions', provider: 'bench', model: 'bench-model', usage: USAGE, stopReason, timestamp: ts, content };
}

export function usageOf(turn: number, messageId: string, ts: number, stopReason: string): NewRecord {
  return {
    t: 'usage',
    turn,
    messageId,
    provider: 'bench',
    model: 'bench-model',
    input: 1200,
    output: 300,
    cacheRead: 800,
    cacheWrite: 0,
    reasoning: 0,
    cost: 0.002,
    latencyMs: 900,
    stopReason,
    ts,
  };
}

/**
 * The records of one realistic turn (about 4 KB): a prompt of 200 to 350 characters, the model
 * reading a file (0.15 to 0.45 KB back) and running the tests (0.1 to 0.3 KB of output), then an
 * answer of 150 to 350 characters; a usage record per model call. The first turn's prompt names
 * `module <seed % 97>`, a word in about 1% of sessions.
 */
export function realisticTurnRecords(turn: number, seed: number, ts: number): NewRecord[] {
  const next = random(seed * 7919 + turn);
  const between = (lo: number, hi: number) => Math.floor(lo + next() * (hi - lo));
  const prompt = `${turn === 1 ? `In module ${seed % 97}, ` : ''}please ${prose(next, between(200, 350))}.`;
  const readId = `call_${seed}_${turn}_read`;
  const testId = `call_${seed}_${turn}_test`;
  const ids = [newMessageId(ts), newMessageId(ts), newMessageId(ts), newMessageId(ts), newMessageId(ts), newMessageId(ts)];
  const file = `src/${WORDS[between(0, WORDS.length)]}/${WORDS[between(0, WORDS.length)]}.ts`;
  const toolResult = (id: string, name: string, text: string) => ({
    role: 'toolResult',
    toolCallId: id,
    toolName: name,
    content: [{ type: 'text', text }],
    isError: false,
    timestamp: ts,
  });
  const message = (id: string, body: unknown): NewRecord => ({ t: 'message', turn, id, message: body as never, ts });
  return [
    { t: 'turn_begin', turn, promptId: `p_${seed}_${turn}`, model: { provider: 'bench', id: 'bench-model', thinking: 'off' }, ts },
    message(ids[0]!, { role: 'user', content: prompt, timestamp: ts }),
    message(
      ids[1]!,
      assistant(
        ts,
        [
          { type: 'text', text: `Let me read ${file} first.` },
          { type: 'toolCall', id: readId, name: 'read_file', arguments: { path: file } },
        ],
        'toolUse',
      ),
    ),
    usageOf(turn, ids[1]!, ts, 'toolUse'),
    { t: 'tool', turn, toolCallId: readId, name: 'read_file', phase: 'end', isError: false, ts },
    message(ids[2]!, toolResult(readId, 'read_file', textBlock(next, CODE_LINES, between(150, 450)))),
    message(ids[3]!, assistant(ts, [{ type: 'toolCall', id: testId, name: 'bash', arguments: { command: `npm test -- ${file}` } }], 'toolUse')),
    usageOf(turn, ids[3]!, ts, 'toolUse'),
    { t: 'tool', turn, toolCallId: testId, name: 'bash', phase: 'end', isError: false, ts },
    message(ids[4]!, toolResult(testId, 'bash', textBlock(next, OUTPUT_LINES, between(100, 300)))),
    message(ids[5]!, assistant(ts, [{ type: 'text', text: `Done: ${prose(next, between(150, 350))}.` }], 'stop')),
    usageOf(turn, ids[5]!, ts, 'stop'),
    { t: 'turn_end', turn, outcome: 'completed', ts },
  ];
}

/** The records of one small turn: prompt, an assistant tool call, its result (`toolOutputBytes`), the answer, usage. 4 messages. */
export function turnRecords(turn: number, seed: number, toolOutputBytes: number): NewRecord[] {
  const ts = 1_700_000_000_000 + seed * 1000 + turn;
  const callId = `call_${seed}_${turn}`;
  const toolText = `${sentence(seed + turn, 12)}\n`.repeat(Math.max(1, Math.floor(toolOutputBytes / 100)));
  const answerId = newMessageId(ts);
  const message = (body: unknown): NewRecord => ({ t: 'message', turn, id: newMessageId(ts), message: body as never, ts });
  return [
    { t: 'turn_begin', turn, promptId: `p_${seed}_${turn}`, model: { provider: 'bench', id: 'bench-model', thinking: 'off' }, ts },
    message({ role: 'user', content: `Please ${sentence(seed + turn, 8)} in module ${seed % 97}`, timestamp: ts }),
    message(assistant(ts, [{ type: 'toolCall', id: callId, name: 'read_file', arguments: { path: `src/mod${turn}.ts` } }], 'toolUse')),
    { t: 'tool', turn, toolCallId: callId, name: 'read_file', phase: 'end', isError: false, ts },
    message({ role: 'toolResult', toolCallId: callId, toolName: 'read_file', content: [{ type: 'text', text: toolText }], isError: false, timestamp: ts }),
    { t: 'message', turn, id: answerId, message: assistant(ts, [{ type: 'text', text: `Done: ${sentence(seed * 7 + turn, 20)}.` }], 'stop') as never, ts },
    usageOf(turn, answerId, ts, 'stop'),
    { t: 'turn_end', turn, outcome: 'completed', ts },
  ];
}

/** What generateSessions writes. */
export interface GenerateOptions {
  readonly count: number;
  readonly workspaces: number;
  readonly turns: number;
  /** Each session's workspace folder. */
  readonly workspaceOf?: (i: number) => string;
  /**
   * `realistic`: turns of about 4 KB (realisticTurnRecords; 20 of them make a session of about
   * 85 KB), sessions last used in an order other than their creation's. `compact`: turns of 4
   * small messages (turnRecords), a turn a second.
   */
  readonly shape?: 'realistic' | 'compact';
  /** Called every 1,000 sessions with how many are written. */
  readonly progress?: (done: number) => void;
}

/** Every generated session is created before this time (the first of 2025); a session created later was added by a run. */
export const GENERATED_BEFORE = Date.UTC(2025, 0, 1);

/** When session `i` is created: a minute after session `i - 1`, from November 2023. */
export function createdAt(i: number): number {
  const created = 1_700_000_000_000 + i * 60_000;
  if (created >= GENERATED_BEFORE) throw new Error(`session ${i} would be created after ${new Date(GENERATED_BEFORE).toISOString()}: too many to generate`);
  return created;
}

/** When session `i` was created, and when each of its turns ran: realistic sessions go on for up to 30 days. */
function timesOf(i: number, turns: number, shape: 'realistic' | 'compact'): { created: number; turnTs: (t: number) => number } {
  const created = createdAt(i);
  if (shape === 'compact') return { created, turnTs: (t) => created + t * 1000 };
  const span = Math.floor(random(i)() * 30 * 24 * 3600 * 1000);
  return { created, turnTs: (t) => created + Math.floor((span * t) / turns) + t };
}

/**
 * Writes sessions in the store's real formats (state.json as writeState writes it, log lines
 * through WireLogWriter.serialize), spread over workspaces; each log's mtime is its last record's
 * time, as if written then. Returns the session folders.
 */
export function generateSessions(root: string, options: GenerateOptions): string[] {
  const { count, workspaces, turns, shape = 'realistic' } = options;
  const workspaceOf = options.workspaceOf ?? ((i: number) => `/bench/workspace-${i % workspaces}`);
  const layout = new StoreLayout(root);
  const dirs: string[] = [];
  for (let i = 0; i < count; i++) {
    const workspaceDir = workspaceOf(i);
    const key = workspaceKey(workspaceDir);
    const { created, turnTs } = timesOf(i, turns, shape);
    const id = newSessionId(created);
    const dir = layout.sessionDir(key, id);
    const lines = [
      WireLogWriter.serialize({ t: 'agent', agentId: 'main', parentAgentId: null, purpose: 'main', sessionId: id, workspaceDir, ts: created }).line,
    ];
    for (let t = 1; t <= turns; t++) {
      const records = shape === 'realistic' ? realisticTurnRecords(t, i, turnTs(t)) : turnRecords(t, i, 300);
      for (const r of records) lines.push(WireLogWriter.serialize(r, turnTs(t)).line);
    }
    writeSessionFolder(dir, { id, workspaceDir, createdAt: created, title: titleOf(i), archived: i % 20 === 19, log: lines.join(''), lastUsed: turnTs(turns) });
    dirs.push(dir);
    if ((i + 1) % 1000 === 0) options.progress?.(i + 1);
  }
  return dirs;
}

/** What a generated session folder holds: its state.json's fields and its main log's text; the log's mtime is `lastUsed`. */
export interface GeneratedSession {
  readonly id: string;
  readonly workspaceDir: string;
  readonly createdAt: number;
  readonly title: string;
  readonly archived: boolean;
  readonly log: string;
  readonly lastUsed: number;
}

/** Writes a session folder `dir` as the store writes one: state.json as writeState writes it, agents/main/wire.jsonl. */
export function writeSessionFolder(dir: string, session: GeneratedSession): void {
  fs.mkdirSync(path.join(dir, 'agents', 'main'), { recursive: true });
  const log = sessionFolderLayout.agentLog(dir);
  fs.writeFileSync(log, session.log);
  const state: StoredState = {
    v: 2,
    id: session.id,
    workspaceKey: workspaceKey(session.workspaceDir),
    workspaceDir: session.workspaceDir,
    createdAt: session.createdAt,
    title: session.title,
    titleSource: 'auto',
    kind: 'conversation',
    visibility: 'visible',
    archived: session.archived,
    forkedFrom: null,
    queue: [],
    paused: null,
  };
  // The bytes writeState writes, without its fsyncs (a generated store need not survive a crash).
  fs.writeFileSync(sessionFolderLayout.stateFile(dir), `${JSON.stringify(storedPart(state), null, 2)}\n`);
  const last = new Date(session.lastUsed);
  fs.utimesSync(log, last, last);
}

/** Writes one session log of about `records` records (8 a turn), with realistic tool outputs (2 to 14 KB). */
export function generateLogOfRecords(file: string, records: number): { records: number; bytes: number } {
  return generateLargeLog(file, Number.POSITIVE_INFINITY, records);
}

/** Writes one session whose main log grows to about `bytes` (or `maxRecords`), with realistic tool outputs. */
export function generateLargeLog(file: string, bytes: number, maxRecords = Number.POSITIVE_INFINITY): { records: number; bytes: number } {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let records = 0;
  try {
    const head = WireLogWriter.serialize({ t: 'agent', agentId: 'main', parentAgentId: null, purpose: 'main' }).line;
    written += fs.writeSync(fd, head);
    for (let turn = 1; written < bytes && records < maxRecords; turn++) {
      const batch = turnRecords(turn, turn, 2_000 + ((turn * 7919) % 12_000))
        .map((r) => WireLogWriter.serialize(r).line)
        .join('');
      written += fs.writeSync(fd, batch);
      records += 8;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { records, bytes: written };
}

/**
 * Copies a log and inserts `count` compaction records at evenly spaced turn ends (the last after
 * the final turn), each keeping the messages of its last three turns verbatim. Returns the copy's size.
 */
export function withCompactions(file: string, out: string, count: number): number {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  const turnEnds = lines.flatMap((l, i) => (l.includes('"t":"turn_end"') ? [i] : []));
  const firstMessageOfTurn = new Map<number, string>();
  for (const l of lines) {
    if (!l.includes('"t":"message"')) continue;
    const r = JSON.parse(l) as { turn: number; id: string };
    if (!firstMessageOfTurn.has(r.turn)) firstMessageOfTurn.set(r.turn, r.id);
  }
  const at = new Set(Array.from({ length: count }, (_, k) => turnEnds[Math.floor(((k + 1) * turnEnds.length) / count) - 1]!));
  const output: string[] = [];
  lines.forEach((l, i) => {
    output.push(l);
    if (!at.has(i)) return;
    const turn = (JSON.parse(l) as { turn: number }).turn;
    const kept = firstMessageOfTurn.get(Math.max(1, turn - 2))!;
    output.push(
      WireLogWriter.serialize({
        t: 'compaction',
        turn,
        summary: `Summary up to turn ${turn}: ${sentence(turn, 300)}.`,
        firstKeptMessageId: kept,
        summarized: turn * 4,
      }).line.trimEnd(),
    );
  });
  fs.writeFileSync(out, `${output.join('\n')}\n`);
  return fs.statSync(out).size;
}
