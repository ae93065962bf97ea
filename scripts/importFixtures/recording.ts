// Where a tool is recorded: a fresh HOME and a workspace with a few small files, under one
// folder of the system's temporary folder, and the tool's runs with a deadline and a log.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from './install';

/** The files every workspace starts with (notes.md is the one the import tests also write). */
const WORKSPACE_FILES: Record<string, string> = {
  'notes.md': 'one\ntwo\n',
  'README.md': '# Greeter\n\nA tiny project to record coding agents in.\n',
  'src/greet.js': 'export const greet = (name) => `hello ${name}`;\n',
};

/** Instructions a tool reads from the workspace by itself (AGENTS.md, CLAUDE.md). */
export const INSTRUCTIONS = 'Keep answers short. Every file here is plain text.\n';

/** One tool's recording folders: a HOME of its own and the workspace it works in. */
export interface Recording {
  readonly root: string;
  readonly home: string;
  readonly workspace: string;
  /** The log the tool's output goes to (named when something fails). */
  readonly log: string;
}

/**
 * A new recording for `tool`, at a fixed place (`<tmp>/braid-import-fixtures/<tool>`, emptied
 * first) so that paths a fixture cannot have rewritten (a live SQLite WAL) are the same each run.
 */
export function newRecording(tool: string, extraFiles: Record<string, string> = {}): Recording {
  const root = path.join(os.tmpdir(), 'braid-import-fixtures', tool);
  fs.rmSync(root, { recursive: true, force: true });
  const home = path.join(root, 'home');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(home, { recursive: true });
  for (const [name, text] of Object.entries({ ...WORKSPACE_FILES, ...extraFiles })) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  const log = path.join(root, 'tool-output.log');
  commitAll(workspace, log);
  return { root, home, workspace, log };
}

/**
 * Makes the workspace a git repository with one commit, as most are; its dates and author are
 * fixed, so its commit id (which opencode takes as the project's id) is the same every run.
 */
function commitAll(workspace: string, log: string): void {
  const date = '2026-01-01T00:00:00Z';
  const env = { ...process.env, GIT_AUTHOR_NAME: 'Fixture', GIT_AUTHOR_EMAIL: 'fixture@example.com', GIT_AUTHOR_DATE: date };
  const git = { ...env, GIT_COMMITTER_NAME: 'Fixture', GIT_COMMITTER_EMAIL: 'fixture@example.com', GIT_COMMITTER_DATE: date };
  run('git', ['init', '-q', '-b', 'main'], workspace, log, git);
  run('git', ['add', '-A'], workspace, log, git);
  run('git', ['commit', '-q', '-m', 'Start'], workspace, log, git);
}

/** The environment a tool runs in: nothing of ours but PATH (for node and the shell), HOME and `extra`. */
export function toolEnv(recording: Recording, extra: Record<string, string>): NodeJS.ProcessEnv {
  const nodeDir = path.dirname(process.execPath);
  return { PATH: `${nodeDir}:/usr/local/bin:/usr/bin:/bin`, HOME: recording.home, LANG: 'C.UTF-8', TERM: 'dumb', ...extra };
}

/** Options of one run of a tool. */
export interface RunOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  readonly stdin?: string;
  /** When this settles, the tool gets SIGINT, as a person pressing Ctrl+C. */
  readonly interruptWhen?: Promise<unknown>;
}

/**
 * Runs the tool in the workspace to its end, its output appended to the recording's log, and
 * returns its standard output. Past the deadline its process group is killed. Throws on a
 * non-zero exit or a timeout, naming the log.
 */
export function runTool(recording: Recording, command: string, args: readonly string[], options: RunOptions): Promise<string> {
  fs.appendFileSync(recording.log, `\n$ ${command} ${args.map((a) => JSON.stringify(a)).join(' ')}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: recording.workspace, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      fs.appendFileSync(recording.log, chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => fs.appendFileSync(recording.log, chunk));
    child.stdin.end(options.stdin ?? '');
    void options.interruptWhen?.then(() => child.kill('SIGINT'));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, options.timeoutMs ?? 180_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${path.basename(command)} could not start: ${err.message} (see ${recording.log})`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${path.basename(command)} ${timedOut ? 'timed out' : `exited with ${code ?? signal}`} (see ${recording.log})`));
    });
  });
}
