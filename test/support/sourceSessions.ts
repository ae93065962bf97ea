import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore, tempDir } from './store';

// Source sessions written by the tests in the shapes the tools write (test/fixtures/import/ holds
// ones the tools themselves wrote): a Claude Code session of N turns, and opencode's database
// written through a real SQLite (Python's sqlite3 module) in WAL mode.

/** One turn of a made-up session: the prompt, the answer, and the minute it was asked at. */
export interface MadeTurn {
  readonly prompt: string;
  readonly answer: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A Claude Code session file (`<folder>/<id>.jsonl`): for each turn a user record and an answer
 * record chained by parentUuid, a minute apart from `startMs`. `extra` records go first.
 */
export function writeClaudeSession(
  folder: string,
  options: { id: string; cwd: string; turns: readonly MadeTurn[]; startMs: number; before?: readonly object[]; after?: readonly object[] },
): string {
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${options.id}.jsonl`);
  const base = { isSidechain: false, userType: 'external', cwd: options.cwd, sessionId: options.id, version: '2.1.332', gitBranch: 'main' };
  let parent: string | null = null;
  const lines: string[] = [];
  const add = (record: object) => lines.push(JSON.stringify(record));
  for (const r of options.before ?? []) {
    const uuid = `pre-${lines.length}`;
    add({ ...base, parentUuid: parent, uuid, timestamp: iso(options.startMs), ...r });
    parent = uuid;
  }
  options.turns.forEach((turn, i) => {
    const ts = options.startMs + i * 60_000;
    add({ ...base, parentUuid: parent, type: 'user', uuid: `u${i}`, timestamp: iso(ts), message: { role: 'user', content: turn.prompt } });
    add({
      ...base,
      parentUuid: `u${i}`,
      type: 'assistant',
      uuid: `a${i}`,
      timestamp: iso(ts + 1000),
      message: {
        model: 'claude-sonnet-4-5',
        id: `msg_${i}`,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: turn.answer }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    });
    parent = `a${i}`;
  });
  for (const r of options.after ?? []) {
    const uuid = `post-${lines.length}`;
    add({ ...base, parentUuid: parent, uuid, timestamp: iso(options.startMs + options.turns.length * 60_000), ...r });
    parent = uuid;
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** `n` turns numbered from 1 ("Prompt 1", "Answer 1", ...). */
export function numberedTurns(n: number): MadeTurn[] {
  return Array.from({ length: n }, (_, i) => ({ prompt: `Prompt ${i + 1}`, answer: `Answer ${i + 1}` }));
}

/** opencode's tables, as its 1.18 release creates them (the columns the importer reads and those it must ignore). */
const OPENCODE_SCHEMA = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL,
  path text, title text NOT NULL, version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer, summary_files integer,
  summary_diffs text, metadata text, cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL, tokens_cache_write integer DEFAULT 0 NOT NULL,
  revert text, permission text, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer,
  time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
`;

/** A session for {@link writeOpencodeDatabase}: its id, folder, title, parent, and turns a minute apart from `startMs`. */
export interface OpencodeMade {
  readonly id: string;
  readonly directory: string;
  readonly title: string;
  readonly parentId?: string;
  readonly startMs: number;
  readonly turns: readonly MadeTurn[];
}

/** The rows of one made-up opencode session: session, messages (their data without the ids the columns hold) and parts. */
function opencodeRows(s: OpencodeMade) {
  const messages: unknown[][] = [];
  const parts: unknown[][] = [];
  s.turns.forEach((turn, i) => {
    const ts = s.startMs + i * 60_000;
    const user = `msg_${s.id}_${String(i).padStart(4, '0')}u`;
    const answer = `msg_${s.id}_${String(i).padStart(4, '0')}v`;
    messages.push([
      user,
      s.id,
      ts,
      ts,
      JSON.stringify({ role: 'user', time: { created: ts }, agent: 'build', model: { providerID: 'local', modelID: 'small' } }),
    ]);
    parts.push([`prt_${user}_1`, user, s.id, ts, ts, JSON.stringify({ type: 'text', text: turn.prompt })]);
    const data = {
      role: 'assistant',
      time: { created: ts + 1000, completed: ts + 2000 },
      parentID: user,
      modelID: 'small',
      providerID: 'local',
      mode: 'build',
      path: { cwd: s.directory, root: s.directory },
      cost: 0,
      tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
      finish: 'stop',
    };
    messages.push([answer, s.id, ts + 1000, ts + 2000, JSON.stringify(data)]);
    parts.push([`prt_${answer}_1`, answer, s.id, ts + 1000, ts + 2000, JSON.stringify({ type: 'text', text: turn.answer })]);
  });
  const last = s.startMs + Math.max(0, s.turns.length - 1) * 60_000 + 2000;
  const session = [s.id, 'prj_1', s.parentId ?? null, s.id, s.directory, s.title, '1.18.33', s.startMs, last];
  return { session, messages, parts };
}

/**
 * Writes opencode's database `file` with SQLite itself (Python's sqlite3 module): WAL mode, and
 * with `leaveWal` the process ends without a checkpoint, so the sessions live in `<file>-wal`
 * alone, as they do while opencode runs.
 */
export function writeOpencodeDatabase(file: string, sessions: readonly OpencodeMade[], { leaveWal = false } = {}): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const rows = sessions.map(opencodeRows);
  runPython(
    `
import json, os, sqlite3, sys
spec = json.load(sys.stdin)
db = sqlite3.connect(spec['file'], isolation_level=None)
db.execute('PRAGMA journal_mode=WAL')
db.execute('PRAGMA wal_autocheckpoint=0')
if not db.execute("SELECT name FROM sqlite_master WHERE name='session'").fetchone():
    db.executescript(spec['schema'])
    db.execute("INSERT INTO project VALUES ('prj_1', '/', 0, 0, '[]')")
for r in spec['rows']:
    db.execute('BEGIN')
    db.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?)", r['session'])
    db.executemany('INSERT INTO message VALUES (?,?,?,?,?)', r['messages'])
    db.executemany('INSERT INTO part VALUES (?,?,?,?,?,?)', r['parts'])
    db.execute('COMMIT')
if spec['leaveWal']:
    os._exit(0)
db.close()
`,
    { file, schema: OPENCODE_SCHEMA, rows, leaveWal },
  );
}

/** Runs a Python program with `input` as JSON on stdin; throws with its stderr when it fails. */
export function runPython(program: string, input: unknown): string {
  const run = spawnSync('python3', ['-c', program], { input: JSON.stringify(input), encoding: 'utf8' });
  if (run.error || run.status !== 0) throw new Error(`python3 failed: ${run.error?.message ?? run.stderr}`);
  return run.stdout;
}

/** A store to import into and a workspace folder the sources name, under one temporary folder. */
export interface ImportPlace {
  readonly root: string;
  readonly workspace: string;
  readonly store: SessionStore;
  cleanup(): Promise<void>;
}

export async function importPlace(prefix: string): Promise<ImportPlace> {
  const root = tempDir(prefix);
  const workspace = path.join(root, 'project');
  fs.mkdirSync(workspace);
  const store = await openStore(path.join(root, 'data'));
  return {
    root,
    workspace,
    store,
    cleanup: async () => {
      await store.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
