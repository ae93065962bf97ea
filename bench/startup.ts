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
import { median } from './measure';

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
    const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
    const log = path.join(root, 'started.log');
    fs.mkdirSync(path.join(root, 'bin'));
    fs.writeFileSync(path.join(root, 'bin', 'git'), `#!/bin/sh\necho x >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
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
    process.env.PATH = `${path.join(root, 'bin')}${path.delimiter}${savedPath}`;
    const turn = async (dir: string): Promise<GitTurn> => {
      fs.rmSync(log, { force: true });
      const start = process.hrtime.bigint();
      const context = await gitContext(dir);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      return { processes: fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0, ms, context };
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
