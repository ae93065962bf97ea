import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './store';

const workers = path.join(repoRoot, 'out', 'test', 'workers');

/** A child process of a test: a worker program or the braid CLI, with its own pid, stoppable and killable at any moment. */
export interface ChildRun {
  readonly child: ChildProcess;
  /** What it printed so far. */
  readonly out: () => string;
  readonly err: () => string;
  /** Resolves when it has exited and its output is read: its code, or the signal that ended it. */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once it has printed `text`; fails when it exits first or takes over 20 s. */
  printed(text: string): Promise<void>;
}

/**
 * Starts a worker program (test/support/workers/<name>.ts, bundled) with `args`; its environment
 * is the test's plus `env`. Its stdin is a pipe the test may write to.
 */
export function spawnWorker(name: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildRun {
  const child = spawn(process.execPath, [path.join(workers, `${name}.cjs`), ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const printed = async (text: string) => {
    const deadline = Date.now() + 20_000;
    while (!out.includes(text)) {
      if (Date.now() > deadline || child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} did not print "${text}": ${out} ${err}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { child, out: () => out, err: () => err, exit, printed };
}

/** Starts `braid <args>` as its own process (workers/cliProcess.ts: the CLI run as dist/cli.js runs it). */
export function spawnBraid(args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildRun {
  return spawnWorker('cliProcess', args, env);
}

/** Runs `braid <args>` to its end; resolves with its exit code and output. */
export async function runBraid(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  const run = spawnBraid(args, env);
  const { code } = await run.exit;
  return { code, out: run.out(), err: run.err() };
}
