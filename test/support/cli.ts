import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { runCli } from '../../src/cli/run';
import { listSessionFolders, StoreLayout } from '../../src/core/format/layout';
import { spawnWorker } from './children';
import { ScriptedModelServer } from './modelServer';
import { tempDir, wasmPath } from './store';

/** What one braid run printed and returned. */
export interface CliRun {
  readonly code: number | null;
  readonly signal?: NodeJS.Signals | null;
  readonly out: string;
  readonly err: string;
}

/** Runs `braid` in this process through runCli; `onOut` sees each piece written to stdout as it comes. */
export async function braidIn(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; onOut?: (text: string) => void } = {},
): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    stdout: {
      write: (t: string) => {
        out += t;
        options.onOut?.(t);
      },
    },
    stderr: { write: (t: string) => (err += t) },
    env: options.env ?? {},
    ...(options.cwd ? { cwd: options.cwd } : {}),
    wasmPath,
  });
  return { code, out, err };
}

/** A `braid` process (the CLI worker, run as dist/cli.js would be); its output accumulates as it comes. */
export interface CliProcess {
  readonly pid: number;
  readonly output: { out: string; err: string };
  /** Resolves when stdout has printed `text`; rejects if the process ends first. */
  printed(text: string): Promise<void>;
  /** Sends a line to its stdin (the worker waits for one with BRAID_TEST_WAIT_STDIN). */
  go(): void;
  kill(signal: NodeJS.Signals): void;
  /** Resolves when it exits; kills it (SIGKILL) and rejects when it runs longer than `timeoutMs`. */
  exited(timeoutMs?: number): Promise<CliRun>;
}

export function braidProcess(args: readonly string[], env: NodeJS.ProcessEnv): CliProcess {
  const run = spawnWorker('cliProcess', args, env);
  const output = {
    get out() {
      return run.out();
    },
    get err() {
      return run.err();
    },
  };
  const ended = run.exit.then(({ code, signal }): CliRun => ({ code, signal, out: run.out(), err: run.err() }));
  return {
    pid: run.child.pid!,
    output,
    printed: (text) => run.printed(text),
    go: () => run.child.stdin!.write('go\n'),
    kill: (signal) => run.child.kill(signal),
    exited: (timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          run.child.kill('SIGKILL');
          reject(new Error(`braid ${args.join(' ')} did not end within ${timeoutMs} ms: ${run.err()}`));
        }, timeoutMs);
        void ended.then((r) => {
          clearTimeout(timer);
          resolve(r);
        });
      }),
  };
}

/** Every file under `dir` whose name is `name`. */
export function filesNamed(dir: string, name: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name === name) found.push(path.join(d, e.name));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return found;
}

/** Characters a terminal acts on instead of showing (C0 but tab and newline, DEL, C1) and bidi controls. */
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
export const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * What a file of tests that run `braid exec` sets up: a temp folder with a `project` workspace in
 * it and a scripted model server, started before the file's tests and closed after them (the
 * folder removed). `env()` is the environment that points braid at the server, with a home of
 * its own (`HOME`, `XDG_CONFIG_HOME`) under the temp folder.
 */
export function cliWithScriptedModel(prefix: string): { root: string; workspace: string; server: ScriptedModelServer; env: () => NodeJS.ProcessEnv } {
  const root = tempDir(prefix);
  const workspace = path.join(root, 'project');
  const server = new ScriptedModelServer();
  let env: NodeJS.ProcessEnv = {};
  before(async () => {
    fs.mkdirSync(workspace);
    // The user's own setup (settings file, skills, commands, approvals) is read from these homes, never the real ones.
    const home = path.join(root, 'home');
    fs.mkdirSync(home);
    env = {
      BRAID_PROVIDER: 'openai-compatible',
      BRAID_MODEL: 'scripted-model',
      BRAID_BASE_URL: await server.start(),
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
    };
  });
  after(async () => {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  return { root, workspace, server, env: () => env };
}

/**
 * The full id of the session `braid exec` names on stderr (`session <short form>; continue
 * with: …`), found among the session folders of the data folder `dataDir`.
 */
export function execSessionId(stderr: string, dataDir: string): string {
  const shown = /^session (\S+); continue with: braid exec --session \1 /m.exec(stderr)?.[1];
  assert.ok(shown, `braid exec named no session: ${stderr}`);
  const ids = listSessionFolders(new StoreLayout(dataDir))
    .map((f) => f.id)
    .filter((id) => id === shown || id.endsWith(shown));
  assert.equal(ids.length, 1, `"${shown}" names ${ids.length} sessions`);
  return ids[0]!;
}
