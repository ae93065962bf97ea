// `braid blame` of a 2,000-line file in a repository with 1,000 sessions, as a new process, beside
// `git blame` of the same file (the simplest peer: its history is 100 commits) and a new node
// process that only reads the file (the floor), in the same run. Run:
//   node scripts/run-ts.mjs bench/blame.ts [--sessions 1000] [--runs 5] [--as before|after] [--no-write] [--keep]
// (or `npm run bench -- --blame`, which builds dist/ first). Prints the table and fills one column
// (default `after`) of "Blame of a 2,000-line file among 1,000 sessions" in bench/RESULTS.md;
// `--keep` leaves the repository and the store in place, for profiling.
//
// The store: 1,000 sessions of the repository, each of 8 turns in the shape of real sessions
// (turnOps/sessionShape.ts: prompt, tool calls and outputs, answer), written as the log writer
// writes them; one session in ten also has turns that write the file (a `file_change` with its
// before and after images, 10 lines changed each time, 100 writes in all, each committed, with the
// turn's `commit` record). The index is then built as `braid rebuild-index` builds it.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BlobStore } from '../src/core/format/blobStore';
import { WireLogWriter } from '../src/core/wire/wireLog';
import type { NewRecord } from '../src/core/wire/records';
import { openStore } from '../test/support/store';
import { numberArg, random } from './benchInputs';
import { columnArg, measuredCommit, runNote, withColumnFigures, type ColumnSection } from './resultsSection';
import { median } from './table';
import { shapedTurn } from './turnOps/generateSession';
import { sessionShape, type SessionShape } from './turnOps/sessionShape';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const resultsFile = path.join(repoRoot, 'bench', 'RESULTS.md');
const SECTION: ColumnSection = { heading: '## Blame of a 2,000-line file among 1,000 sessions', rowHeader: 'measure (goal)' };
const INTRO = [
  '`npm run bench -- --blame` (`bench/blame.ts`; `-- --as before` fills the other column). A git repository with a',
  '2,000-line file and 1,000 sessions of it, each of 8 turns in the shape of real sessions; one session in ten also writes the',
  'file (100 writes of 10 lines each, each committed). Each figure is the median of 5 runs of a new process, from spawn to',
  'exit: `node dist/cli.js blame` (the index built by `rebuild-index` beforehand), `git blame` of the same file (its',
  'history is the 100 commits) and a new node process that only reads the file (the floor).',
].join('\n');

const FILE_LINES = 2000;
const WRITES = 100;
const TURNS_PER_SESSION = 8;
const GIT_ENV = { GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };

function ms(x: number): string {
  return `${x.toFixed(0)} ms`;
}

/** The file's first version: FILE_LINES lines of plausible code. */
function firstVersion(): string[] {
  return Array.from({ length: FILE_LINES }, (_, i) => `  const value${i} = compute(${i}, options.scale * ${i % 97}); // line ${i}`);
}

/** Version `n` of the file: version n-1 with 10 lines from a drawn place replaced. */
function nextVersion(lines: string[], n: number, next: () => number): string[] {
  const at = Math.floor(next() * (lines.length - 10));
  const changed = [...lines];
  for (let i = 0; i < 10; i++) changed[at + i] = `  const edit${n}_${i} = rework(${at + i}, ${n}); // written by write ${n}`;
  return changed;
}

interface Rig {
  readonly scratch: string;
  readonly repo: string;
  readonly file: string;
  readonly data: string;
  readonly claimedLines: number;
}

/** The repository, its history and the store of sessions of it. */
async function buildRig(scratch: string, sessions: number, shape: SessionShape): Promise<Rig> {
  const repo = path.join(scratch, 'repo');
  const file = path.join(repo, 'src', 'big.ts');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  const data = path.join(scratch, 'data');
  const store = await openStore(data);
  const next = random(38);
  let lines = firstVersion();
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  git('add', '.');
  git('commit', '-q', '-m', 'the first version');
  const writers = Math.max(1, Math.floor(sessions / 10));
  let write = 0;
  let ts = 1_760_000_000_000;
  for (let s = 0; s < sessions; s++) {
    const state = await store.create({ workspaceDir: repo });
    const dir = store.locate(state.id);
    const log = store.layout.agentLog(dir);
    const blobs = new BlobStore(store.layout.blobsDir(dir));
    const writesHere = s % 10 === 0 && s / 10 < writers ? Math.ceil(WRITES / writers) : 0;
    let text = '';
    for (let turn = 1; turn <= TURNS_PER_SESSION; turn++) {
      ts += 60_000;
      const records = shapedTurn(turn, ts, shape, next);
      if (turn <= writesHere && write < WRITES) {
        const before = blobs.put(Buffer.from(`${lines.join('\n')}\n`));
        lines = nextVersion(lines, ++write, next);
        fs.writeFileSync(file, `${lines.join('\n')}\n`);
        const after = blobs.put(Buffer.from(`${lines.join('\n')}\n`));
        git('commit', '-q', '-am', `write ${write}`, `--date=@${Math.floor(ts / 1000)}`);
        const commit = git('rev-parse', 'HEAD').trim();
        const parent = git('rev-parse', 'HEAD~1').trim();
        const extra: NewRecord[] = [
          { t: 'file_change', turn, toolCallId: `call_${turn}_w`, path: 'src/big.ts', before, after, root: fs.realpathSync(repo), ts },
          {
            t: 'commit',
            turn,
            commit,
            parents: [parent],
            at: Math.floor(ts / 1000) * 1000,
            subject: `write ${write}`,
            root: fs.realpathSync(repo),
            files: [{ status: 'M', path: 'src/big.ts' }],
            ts,
          },
        ];
        records.splice(records.length - 1, 0, ...extra);
      }
      text += records.map((r) => WireLogWriter.serialize(r, ts).line).join('');
    }
    fs.appendFileSync(log, text);
  }
  await store.close();
  const built = spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), '--data-dir', data, 'rebuild-index'], { cwd: repo, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`rebuild-index failed: ${built.stderr}`);
  const check = blame(data, repo, file);
  if (check.code !== 0) throw new Error(`braid blame failed: ${check.stderr}`);
  const claimedLines = (JSON.parse(check.stdout) as { lines: Array<{ author: unknown }> }).lines.filter((l) => l.author).length;
  return { scratch, repo, file, data, claimedLines };
}

function blame(data: string, repo: string, file: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), '--data-dir', data, 'blame', file, '--json'], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The median ms of `runs` runs of a new process, spawn to exit; it must exit 0. */
function timed(runs: number, command: string, args: readonly string[], cwd: string): number {
  const figures: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
    figures.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr?.toString()}`);
  }
  return median(figures);
}

async function main(): Promise<void> {
  measuredCommit(repoRoot);
  const argv = process.argv.slice(2);
  const column = columnArg(argv);
  const sessions = numberArg(argv, '--sessions', 1000, 10);
  const runs = numberArg(argv, '--runs', 5, 1);
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run npm run build first (npm run bench does)');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-blame-'));
  try {
    const shape = sessionShape(repoRoot);
    const started = Date.now();
    const rig = await buildRig(scratch, sessions, shape);
    console.log(
      `store: ${sessions} sessions, ${WRITES} writes of the file, built in ${((Date.now() - started) / 1000).toFixed(0)} s; blame claims ${rig.claimedLines} lines`,
    );
    const cli = path.join(repoRoot, 'dist', 'cli.js');
    const braid = timed(runs, process.execPath, [cli, '--data-dir', rig.data, 'blame', rig.file], rig.repo);
    const gitBlame = timed(runs, 'git', ['blame', '--', 'src/big.ts'], rig.repo);
    const floor = timed(runs, process.execPath, ['-e', `require('fs').readFileSync(${JSON.stringify(rig.file)})`], rig.repo);
    const table: Array<[string, string]> = [
      [`braid blame, new process (<= 300 ms)`, `${ms(braid)} (${braid <= 300 ? 'met' : 'not met'})`],
      ['git blame of the same file, new process', `${ms(gitBlame)}; braid ${(braid / gitBlame).toFixed(2)}x`],
      ['floor: a new node process reading the file', `${ms(floor)}; braid ${(braid / floor).toFixed(2)}x`],
      ['lines claimed (of 2,000)', String(rig.claimedLines)],
    ];
    console.log(`\nBlame (${column}):`);
    for (const [what, value] of table) console.log(`  ${what}: ${value}`);
    if (argv.includes('--no-write')) return;
    const previous = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
    const detail = `${sessions} sessions of ${TURNS_PER_SESSION} turns (shape: ${shape.source}), ${WRITES} writes, ${runs} runs`;
    fs.writeFileSync(resultsFile, withColumnFigures(previous, SECTION, INTRO, table, column, runNote(repoRoot, detail)));
    console.log(`\nwrote the ${column} column of "${SECTION.heading.slice(3)}" in bench/RESULTS.md`);
  } finally {
    if (argv.includes('--keep')) console.log(`kept the repository and the store in ${scratch}`);
    else fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
