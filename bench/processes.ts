// The processes the benchmark starts. A measure child is this bench's own bundle run with `--child`
// (its figures are taken inside it and printed as JSON). A fresh process (the `braid` CLI, a peer's
// listing in a new process, `node -e 0`) is timed from outside, from spawn to exit, and reports its
// peak memory through the preloaded fresh/reportPeak.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { sqlJsWithHostFiles } from '../scripts/sqlJsBuild.mjs';
import type { Results } from './memory';
import { median } from './table';

const NAMES = ['reportPeak', 'firstPage', 'peerList', 'bareCall', 'braidMeasures', 'peerMeasures', 'sessionMeasures'] as const;

/** The bundled programs of bench/programs/, by name. */
export type Programs = Record<(typeof NAMES)[number], string>;

/**
 * Bundles bench/programs/*.ts for Node (no source maps, so they load as fast as they can);
 * sessionMeasures, which holds the agent kernel and takes seconds to bundle, only `withSession`.
 */
export async function bundlePrograms(repoRoot: string, withSession: boolean): Promise<Programs> {
  const outdir = await bundleProgramFiles(
    repoRoot,
    NAMES.filter((n) => withSession || n !== 'sessionMeasures'),
  );
  return Object.fromEntries(NAMES.map((n) => [n, path.join(outdir, `${n}.cjs`)])) as Programs;
}

/** Bundles bench/programs/<name>.ts into out/bench/programs/<name>.cjs, each; returns that folder. */
export async function bundleProgramFiles(repoRoot: string, names: readonly string[]): Promise<string> {
  const outdir = path.join(repoRoot, 'out', 'bench', 'programs');
  await esbuild.build({
    entryPoints: Object.fromEntries(names.map((n) => [n, path.join(repoRoot, 'bench', 'programs', `${n}.ts`)])),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outExtension: { '.js': '.cjs' },
    // As scripts/bundle-node.mjs bundles for Node: what Node must load itself stays out, and the
    // ESM-only kernel packages get an import.meta.url.
    external: ['vscode', 'esbuild', '@opentelemetry/api'],
    inject: [path.join(repoRoot, 'src', 'shims', 'import-meta-url.js')],
    define: { 'import.meta.url': 'import_meta_url', BRAID_VERSION: '"bench"' },
    logLevel: 'warning',
    plugins: [sqlJsWithHostFiles(repoRoot)],
  });
  return outdir;
}

/** Runs measure kinds, in order, in one child process of a measure program (bench/programs/runMeasures.ts); its stderr shows on ours. */
export async function inChild(program: string, kinds: ReadonlyArray<{ kind: string; args: object }>): Promise<Record<string, Results>> {
  const { code, stdout, stderr } = await run(process.execPath, ['--expose-gc', program, JSON.stringify(kinds)], { passStderr: true });
  if (code !== 0) throw new Error(`${kinds.map((k) => k.kind).join(', ')} failed (exit ${code}): ${stderr.slice(-2000)}`);
  return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, Results>;
}

/** A fresh process's figures: ms from spawn to exit, to the first output matching `firstOutput`, and its peak memory. */
export interface FreshFigure {
  readonly ms: number;
  readonly firstMs?: number;
  readonly peakMb?: number;
  /** What the process itself timed and printed (see `reportedMs`). */
  readonly reportedMs?: number;
}

export interface FreshOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Time also the first stdout text that matches. */
  readonly firstOutput?: RegExp;
  /** Show the process's stderr as it runs (a progress count). */
  readonly passStderr?: boolean;
  /** A figure the process times itself and prints: the first group of this pattern, in ms. */
  readonly reportedMs?: RegExp;
}

/** Runs `node -r reportPeak <args>` `runs` times; the median of each figure. */
export async function fresh(programs: Programs, runs: number, args: readonly string[], options: FreshOptions = {}): Promise<FreshFigure> {
  const figures: FreshFigure[] = [];
  for (let i = 0; i < runs; i++) figures.push(await freshOnce(programs, args, options));
  const pick = (f: (x: FreshFigure) => number | undefined) => {
    const values = figures.map(f).filter((v): v is number => v !== undefined);
    return values.length ? median(values) : undefined;
  };
  return { ms: pick((f) => f.ms)!, firstMs: pick((f) => f.firstMs), peakMb: pick((f) => f.peakMb), reportedMs: pick((f) => f.reportedMs) };
}

async function freshOnce(programs: Programs, args: readonly string[], options: FreshOptions): Promise<FreshFigure> {
  const peakFile = path.join(os.tmpdir(), `braid-bench-peak-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const env = { ...process.env, ...options.env, BENCH_PEAK_FILE: peakFile };
  const result = await run(process.execPath, ['-r', programs.reportPeak, ...args], { ...options, env });
  if (result.code !== 0) throw new Error(`${args.join(' ')} failed (exit ${result.code}): ${result.stderr.slice(-2000)}`);
  let peakMb: number | undefined;
  try {
    peakMb = Number(fs.readFileSync(peakFile, 'utf8'));
    fs.rmSync(peakFile);
  } catch {
    peakMb = undefined;
  }
  const reported = options.reportedMs?.exec(result.stdout)?.[1];
  return { ms: result.ms, firstMs: result.firstMs, peakMb, reportedMs: reported === undefined ? undefined : Number(reported) };
}

/** A process that ran: its exit code, output, and ms from spawn to exit (and to the first output asked for). */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  firstMs?: number;
}

/** Spawns without blocking this process's event loop (the scripted model server runs in it). */
export function run(command: string, args: readonly string[], options: FreshOptions): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - start) / 1e6;
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let firstMs: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (firstMs === undefined && options.firstOutput?.test(stdout)) firstMs = elapsed();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (options.passStderr) process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: elapsed(), firstMs }));
  });
}
