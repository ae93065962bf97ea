// The native SQLite peer of the index-scale benchmark: a Codex-style state database (one row per
// session in a `threads` table, as Codex CLI's state database keeps its threads) queried by the
// `sqlite3` command line, or by Python's sqlite3 module where that command is missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** A session's row of the state database. */
export interface ThreadRow {
  readonly id: string;
  readonly cwd: string;
  readonly title: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly firstUserMessage: string;
  readonly tokens: number;
}

const SCHEMA = `
CREATE TABLE threads (
  id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  source TEXT NOT NULL, model_provider TEXT NOT NULL, model TEXT, cwd TEXT NOT NULL, title TEXT NOT NULL,
  sandbox_policy TEXT NOT NULL, approval_mode TEXT NOT NULL, tokens_used INTEGER NOT NULL DEFAULT 0,
  has_user_event INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0, archived_at INTEGER,
  git_sha TEXT, git_branch TEXT, git_origin_url TEXT, first_user_message TEXT
);
CREATE INDEX idx_threads_created_at ON threads(created_at DESC, id DESC);
CREATE INDEX idx_threads_updated_at ON threads(updated_at DESC, id DESC);
CREATE INDEX idx_threads_cwd ON threads(cwd);
`;

/** A text as an SQL string literal. */
export const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** How SQL is run: the `sqlite3` command line, else Python's module; `name` says which (with its version). */
export interface NativeSqlite {
  readonly name: string;
  /** The command and arguments of a new process that runs `sql` on `db` and prints its rows. */
  command(db: string, sql: string): { command: string; args: string[] };
}

const PYTHON_RUN = 'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nfor r in c.execute(sys.argv[2]): print(*r, sep="|")\nc.commit()';
const PYTHON_SCRIPT = 'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.executescript(sys.stdin.read())\nc.commit()';
const PYTHON_DUMP = 'import sqlite3,sys\nfor l in sqlite3.connect(sys.argv[1]).iterdump(): print(l)';

/** The native SQLite at hand: `sqlite3` on PATH, else python3's sqlite3; throws when neither is there. */
export function nativeSqlite(): NativeSqlite {
  const cli = spawnSync('sqlite3', ['--version'], { encoding: 'utf8' });
  if (cli.status === 0) return { name: `sqlite3 ${cli.stdout.split(' ')[0]} (command line)`, command: (db, sql) => ({ command: 'sqlite3', args: [db, sql] }) };
  const py = spawnSync('python3', ['-c', 'import sqlite3; print(sqlite3.sqlite_version)'], { encoding: 'utf8' });
  if (py.status === 0)
    return { name: `SQLite ${py.stdout.trim()} (python3's sqlite3)`, command: (db, sql) => ({ command: 'python3', args: ['-c', PYTHON_RUN, db, sql] }) };
  throw new Error('the native SQLite peer needs the sqlite3 command (Debian package sqlite3) or python3');
}

/** Runs a whole SQL script on `db` (created when missing). */
export function runScript(db: string, script: string): void {
  const cli = spawnSync('sqlite3', [db], { input: script, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (cli.status === 0) return;
  const py = spawnSync('python3', ['-c', PYTHON_SCRIPT, db], { input: script, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (py.status !== 0) throw new Error(`running SQL on ${db} failed: ${cli.stderr || py.stderr}`);
}

/** The SQL text of a database (`.dump`), to see which bytes name a session; any SQLite file, sql.js's too. */
export function dumpOf(db: string): string {
  const cli = spawnSync('sqlite3', [db, '.dump'], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  if (cli.status === 0) return cli.stdout;
  const py = spawnSync('python3', ['-c', PYTHON_DUMP, db], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  if (py.status !== 0) throw new Error(`reading ${db} failed: ${cli.stderr || py.stderr}`);
  return py.stdout;
}

/** Writes the state database `file`: the threads table and its indexes, a row per session. */
export function writeStateDatabase(file: string, rows: readonly ThreadRow[]): void {
  fs.rmSync(file, { force: true });
  const values = rows.map(
    (r) =>
      `(${sqlText(r.id)}, ${sqlText(`${r.cwd}/rollout-${r.id}.jsonl`)}, ${r.createdAt}, ${r.updatedAt}, 'cli', 'openai', 'gpt-5.2-codex', ` +
      `${sqlText(r.cwd)}, ${sqlText(r.title)}, 'workspace-write', 'on-request', ${r.tokens}, 1, 0, NULL, ` +
      `'3f2a9c1e0b7d4a6f8e5c2b1a0d9e8f7c6b5a4d3e', 'main', 'https://github.com/example/project.git', ${sqlText(r.firstUserMessage)})`,
  );
  const inserts: string[] = [];
  for (let at = 0; at < values.length; at += 500) inserts.push(`INSERT INTO threads VALUES ${values.slice(at, at + 500).join(',\n')};`);
  runScript(file, `${SCHEMA}\nBEGIN;\n${inserts.join('\n')}\nCOMMIT;\n`);
}
