import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './store';

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
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(out.split('\n').filter(Boolean)) : reject(new Error(`${name} ${args.join(' ')} exited ${code}: ${err}`))));
  });
}
