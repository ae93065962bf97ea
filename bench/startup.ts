// Startup and the git context of a turn (`npm run bench -- --startup`; prints, writes nothing):
// - `braid version` against `node -e 0`: fresh processes, interleaved, medians;
// - loading dist/extension.js alone (vscode stubbed), and extension activation at 100k sessions:
//   run by bench/run.ts through its fresh child processes;
// - the git processes a turn's git context starts, and its time: the first turn, an unchanged
//   repository, after an edit in the work tree, after a commit, outside a repository.
// The bundles are the production ones (what the .vsix ships), built into a temp folder, or
// `--dist DIR` for bundles built elsewhere (an older commit's, for a before column).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitContext } from '../src/core/session/gitContext';
import { generateSessions } from './generate';
import { gitCounter } from './gitCounter';
import type { Measured } from './memory';
import { startupMeasure } from './startupMeasure';
import { median } from './table';

/** Fresh processes per command. */
const RUNS = 20;

/** The production node bundles in a temp folder (removed by the caller), or `--dist DIR`. */
export function productionBundles(repoRoot: string, argv: readonly string[]): { dist: string; built: boolean } {
  const given = argv.indexOf('--dist');
  if (given >= 0) return { dist: path.resolve(argv[given + 1]!), built: false };
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-dist-'));
  const r = spawnSync(process.execPath, ['esbuild.mjs', '--production', '--node-only', '--outdir', dist], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the production build failed: ${r.stderr}`);
  return { dist, built: true };
}

function msOf(argv: readonly string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Medians of `node -e 0` and `node <dist>/cli.js version`, run one after the other {@link RUNS} times. */
export function versionAgainstNode(dist: string): { node: number; version: number } {
  const node: number[] = [];
  const version: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    node.push(msOf([process.execPath, '-e', '0']));
    version.push(msOf([process.execPath, path.join(dist, 'cli.js'), 'version']));
  }
  return { node: median(node), version: median(version) };
}

/** One turn's git context: the git processes it started (counted by a git first on PATH) and its time. */
interface GitTurn {
  readonly processes: number;
  readonly ms: number;
  readonly context: string | undefined;
}

/**
 * The git context turn after turn in a repository of 2,000 files: the first turn, ten unchanged
 * ones (medians), after an edit of a tracked file, after a commit; and outside a repository.
 * Also whether the edit changed HEAD or the index's mtime (what a cache of the status would be keyed by).
 */
export async function gitTurns(): Promise<Array<[string, string]>> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-git-'));
  const savedPath = process.env.PATH;
  try {
    const counter = gitCounter(root);
    const realGit = counter.realGit;
    const repo = path.join(root, 'repo');
    const git = (...args: string[]) =>
      spawnSync(realGit, args, {
        cwd: repo,
        env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' },
      });
    for (let i = 0; i < 2_000; i++) {
      const dir = path.join(repo, `src${i % 100}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `file${i}.ts`), `export const value${i} = ${i};\n`);
    }
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'the first commit');
    process.env.PATH = counter.path;
    const turn = async (dir: string): Promise<GitTurn> => {
      counter.reset();
      const start = process.hrtime.bigint();
      const context = await gitContext(dir);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      return { processes: counter.count(), ms, context };
    };
    const cell = (t: GitTurn) => `${t.processes} ${t.processes === 1 ? 'process' : 'processes'}, ${t.ms.toFixed(1)} ms`;
    const rows: Array<[string, string]> = [];
    const first = await turn(repo);
    rows.push(['git context, first turn', cell(first)]);
    const unchanged: GitTurn[] = [];
    for (let i = 0; i < 10; i++) unchanged.push(await turn(repo));
    rows.push(['git context, unchanged repository (median of 10)', cell({ ...unchanged[0]!, ms: median(unchanged.map((t) => t.ms)) })]);
    const index = path.join(repo, '.git', 'index');
    const before = { head: fs.readFileSync(path.join(repo, '.git', 'HEAD'), 'utf8'), index: fs.statSync(index).mtimeMs };
    fs.writeFileSync(path.join(repo, 'src7', 'file7.ts'), 'export const value7 = 8;\n');
    const edited = await turn(repo);
    const same = fs.readFileSync(path.join(repo, '.git', 'HEAD'), 'utf8') === before.head && fs.statSync(index).mtimeMs === before.index;
    rows.push([
      'git context, after an edit of a tracked file',
      `${cell(edited)}; status ${edited.context === first.context ? 'unchanged' : 'changed'}, HEAD and index mtime ${same ? 'unchanged' : 'changed'}`,
    ]);
    git('commit', '-q', '-am', 'a second commit');
    rows.push(['git context, after a commit', cell(await turn(repo))]);
    const outside = path.join(root, 'plain');
    fs.mkdirSync(outside);
    rows.push(['git context, outside a repository', cell(await turn(outside))]);
    return rows;
  } finally {
    process.env.PATH = savedPath;
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Runs a startup measurement in a fresh process of the running bench (`--startup-child`, see startupChild). */
function inChild(kind: string, ...args: string[]): Measured {
  const r = spawnSync(process.execPath, [process.argv[1]!, '--startup-child', kind, ...args], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`startup measurement ${kind} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Measured;
}

/** The child's side of inChild: measures and prints the figures as one JSON line. */
export async function startupChild(argv: readonly string[], wasmPath: string): Promise<void> {
  const result = await startupMeasure(argv[0]!, argv.slice(1), wasmPath);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * Startup, printed: `braid version` against `node -e 0`, loading the extension bundle, extension
 * activation at `--sessions N` (100k) sessions of 2 turns over 50 workspaces (in `--store DIR`,
 * kept, when given), the git context per turn.
 */
export async function startupBench(argv: readonly string[], repoRoot: string): Promise<void> {
  const { dist, built } = productionBundles(repoRoot, argv);
  const sessions = argv.includes('--sessions') ? Number(argv[argv.indexOf('--sessions') + 1]) : 100_000;
  // --store DIR: a store of that many sessions kept between runs (generated there when missing), for before and after.
  const kept = argv.includes('--store') ? path.resolve(argv[argv.indexOf('--store') + 1]!) : undefined;
  const store = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-startup-'));
  const rows: Array<[string, string]> = [];
  const add = (what: string, value: string) => {
    rows.push([what, value]);
    console.log(`${what}: ${value}`);
  };
  try {
    const { node, version } = versionAgainstNode(dist);
    add('`node -e 0` (median of 20 fresh processes)', `${node.toFixed(0)} ms`);
    add('`braid version` (median of 20 fresh processes)', `${version.toFixed(0)} ms, ${(version / node).toFixed(2)}x \`node -e 0\``);
    const bundle = path.join(dist, 'extension.js');
    const kib = (fs.statSync(bundle).size / 1024).toFixed(0);
    const loads = [0, 1, 2, 3, 4].map(() => inChild('bundle-load', bundle));
    add(`load dist/extension.js (${kib} KiB; median of 5 fresh processes)`, `${median(loads.map((m) => m.ms)).toFixed(0)} ms`);
    if (!fs.existsSync(path.join(store, 'sessions'))) generateSessions(store, { count: sessions, workspaces: 50, turns: 2, shape: 'compact' });
    inChild('activation', store, bundle); // builds the workspace's index: later runs load it, as every activation after the first does
    const activations = [0, 1, 2].map(() => inChild('activation', store, bundle));
    add(
      `${sessions / 1000}k sessions of 2 turns: extension activation (load the bundle, open the store as the extension does, first page; median of 3)`,
      `${median(activations.map((m) => m.ms)).toFixed(0)} ms, ${median(activations.map((m) => m.peakMb ?? 0)).toFixed(0)} MB`,
    );
    for (const [what, value] of await gitTurns()) add(what, value);
  } finally {
    if (built) fs.rmSync(dist, { recursive: true, force: true });
    if (!kept) fs.rmSync(store, { recursive: true, force: true });
  }
  const note = `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown CPU'}, load average ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version}`;
  console.log(`\n${note}\n\n| measure | figure |\n| --- | --- |\n${rows.map(([m, f]) => `| ${m} | ${f} |`).join('\n')}\n`);
}
