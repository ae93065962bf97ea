import { spawn } from 'node:child_process';
import path from 'node:path';
import assert from 'node:assert/strict';
import { runCli } from '../../src/cli/run';
import { listSessionFolders } from '../../src/core/format/layout';
import { readState } from '../../src/core/format/sessionState';
import { openStore, repoRoot, wasmPath } from './store';

// The fault suite's two modes: `npm test` runs the bounded quick mode, `npm run test:faults` the
// long one (test/run.ts sets BRAID_FAULTS_MODE). An explicit environment variable overrides both.
export const longMode = process.env.BRAID_FAULTS_MODE === 'long';

/** How many trials (or seconds) a fault kind gets: `quick` in npm test, `long` in test:faults. */
export function trials(envName: string, quick: number, long: number): number {
  const forced = process.env[envName];
  return forced !== undefined ? Number(forced) : longMode ? long : quick;
}

/**
 * Runs a worker program (test/support/workers/<name>.ts, bundled) and kills it with SIGKILL
 * `delayMs` after it prints "ready"; resolves with the lines it printed. A worker that exits by
 * itself fails the trial.
 */
export function runUntilKilled(name: string, args: readonly string[], delayMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'out', 'test', 'workers', `${name}.cjs`), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      const before = out.includes('ready\n');
      out += c.toString();
      if (!before && out.includes('ready\n')) setTimeout(() => child.kill('SIGKILL'), delayMs);
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve(out.split('\n').filter(Boolean)) : reject(new Error(`${name} ${args.join(' ')} exited ${code}: ${err}`)),
    );
  });
}

/**
 * How long after "ready" a trial's kill comes: at random within a window that doubles after a
 * trial in which the worker finished nothing (on a loaded machine the work did not reach its end
 * in time) and shrinks back after one in which it did, so the kills land inside the work, and
 * some after it, at any load.
 */
export class KillWindow {
  private ms: number;
  constructor(
    private readonly base: number,
    private readonly max = 5_000,
  ) {
    this.ms = base;
  }

  next(): number {
    return Math.random() * this.ms;
  }

  /** Widens or narrows the window after a trial that finished `done` operations. */
  finished(done: number): void {
    this.ms = done > 0 ? Math.max(this.base, this.ms / 2) : Math.min(this.max, this.ms * 2);
  }
}

/** `braid doctor --fix`, then `braid doctor`: the second must find no error and nothing fixable. */
export async function doctorFinds(root: string): Promise<{ fixed: string[]; left: string[] }> {
  const run = async (args: string[]) => {
    let out = '';
    const code = await runCli(['--data-dir', root, 'doctor', '--json', ...args], {
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: () => undefined },
      env: {},
      wasmPath,
    });
    return { code, report: JSON.parse(out) as { findings: Array<{ severity: string; fixable: boolean; message: string; where: string }> } };
  };
  const fixed = await run(['--fix']);
  const again = await run([]);
  const left = again.report.findings.filter((f) => f.severity === 'error' || f.fixable).map((f) => `${f.where}: ${f.message}`);
  assert.equal(again.code, 0, left.join('\n'));
  return { fixed: fixed.report.findings.map((f) => f.message), left };
}

/** The index as saved, the folders on disk and `braid list --all --json` name the same sessions with the same titles. */
export async function assertIndexAgrees(root: string): Promise<void> {
  const store = await openStore(root);
  const disk = listSessionFolders(store.layout)
    .map((f) => {
      const s = readState(path.join(f.dir, 'state.json'));
      return `${s.id} ${s.title} ${s.archived}`;
    })
    .sort();
  await store.close();
  const listed: string[] = [];
  for (const extra of [[], ['--archived']]) {
    let out = '';
    assert.equal(
      await runCli(['--data-dir', root, 'list', '--all', '--json', ...extra], {
        stdout: { write: (t: string) => (out += t) },
        stderr: { write: () => undefined },
        env: {},
        wasmPath,
      }),
      0,
    );
    listed.push(...(JSON.parse(out) as Array<{ id: string; title: string; archived: boolean }>).map((r) => `${r.id} ${r.title} ${r.archived}`));
  }
  assert.deepEqual(listed.sort(), disk);
}
