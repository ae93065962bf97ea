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
import type { SessionStore } from '../src/core/store/sessionStore';
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
  'exit, of `node dist/cli.js blame` (the index built by `rebuild-index` beforehand): after one more session (a new folder',
  'the index has not read) wrote the file, so blame goes on from its memo of the file through one more write; again with',
  'nothing new; and the first blame of the file, its memo removed before each run, so every write is replayed. Beside',
  'them `git blame` of the same file (its history is the 100 commits) and a new node process that only reads the file (the floor).',
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
  /** Adds one more session whose last turn writes the file (and commits it), as another process would. */
  readonly oneMoreWrite: () => Promise<void>;
}

/** The repository's file through its writes: each write changes 10 lines and commits them. */
class FileHistory {
  private lines = firstVersion();
  private write = 0;

  constructor(
    private readonly repo: string,
    readonly file: string,
    private readonly next: () => number,
  ) {}

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.repo, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
  }

  /** The repository with the file's first version committed. */
  start(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    this.git('init', '-q', '-b', 'main');
    fs.writeFileSync(this.file, this.text());
    this.git('add', '.');
    this.git('commit', '-q', '-m', 'the first version');
  }

  get writes(): number {
    return this.write;
  }

  /** The next write, made on disk and committed, as the records of turn `turn` at `ts` say it (its images put in `blobs`). */
  writeRecords(turn: number, ts: number, blobs: BlobStore): NewRecord[] {
    const before = blobs.put(Buffer.from(this.text()));
    this.lines = nextVersion(this.lines, ++this.write, this.next);
    fs.writeFileSync(this.file, this.text());
    const after = blobs.put(Buffer.from(this.text()));
    this.git('commit', '-q', '-am', `write ${this.write}`, `--date=@${Math.floor(ts / 1000)}`);
    const commit = this.git('rev-parse', 'HEAD').trim();
    const parent = this.git('rev-parse', 'HEAD~1').trim();
    const root = fs.realpathSync(this.repo);
    return [
      { t: 'file_change', turn, toolCallId: `call_${turn}_w`, path: 'src/big.ts', before, after, root, ts },
      {
        t: 'commit',
        turn,
        commit,
        parents: [parent],
        at: Math.floor(ts / 1000) * 1000,
        subject: `write ${this.write}`,
        root,
        files: [{ status: 'M', path: 'src/big.ts' }],
        ts,
      },
    ];
  }

  private text(): string {
    return `${this.lines.join('\n')}\n`;
  }
}

/** The repository, its history and the store of sessions of it. */
async function buildRig(scratch: string, sessions: number, shape: SessionShape): Promise<Rig> {
  const repo = path.join(scratch, 'repo');
  const history = new FileHistory(repo, path.join(repo, 'src', 'big.ts'), random(38));
  history.start();
  const data = path.join(scratch, 'data');
  const next = random(39);
  let ts = 1_760_000_000_000;
  /** A session of TURNS_PER_SESSION turns, the first `writesHere` of which write the file; its log written as the writer writes it. */
  const addSession = async (store: SessionStore, writesHere: number) => {
    const state = await store.create({ workspaceDir: repo });
    const dir = store.locate(state.id);
    const blobs = new BlobStore(store.layout.blobsDir(dir));
    let text = '';
    for (let turn = 1; turn <= TURNS_PER_SESSION; turn++) {
      ts += 60_000;
      const records = shapedTurn(turn, ts, shape, next);
      if (turn <= writesHere) records.splice(records.length - 1, 0, ...history.writeRecords(turn, ts, blobs));
      text += records.map((r) => WireLogWriter.serialize(r, ts).line).join('');
    }
    fs.appendFileSync(store.layout.agentLog(dir), text);
  };
  const store = await openStore(data);
  const writers = Math.max(1, Math.floor(sessions / 10));
  for (let s = 0; s < sessions; s++) {
    const writesHere = s % 10 === 0 && s / 10 < writers ? Math.ceil(WRITES / writers) : 0;
    await addSession(store, Math.min(writesHere, WRITES - history.writes));
  }
  await store.close();
  const built = spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), '--data-dir', data, 'rebuild-index'], { cwd: repo, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`rebuild-index failed: ${built.stderr}`);
  const check = blame(data, repo, history.file);
  if (check.code !== 0) throw new Error(`braid blame failed: ${check.stderr}`);
  const claimedLines = (JSON.parse(check.stdout) as { lines: Array<{ author: unknown }> }).lines.filter((l) => l.author).length;
  const oneMoreWrite = async () => {
    const again = await openStore(data);
    try {
      await addSession(again, 1);
    } finally {
      await again.close();
    }
  };
  return { scratch, repo, file: history.file, data, claimedLines, oneMoreWrite };
}

function blame(data: string, repo: string, file: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), '--data-dir', data, 'blame', file, '--json'], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The median ms of `runs` runs of a new process, spawn to exit (`before` runs untimed before each); it must exit 0. */
async function timed(runs: number, command: string, args: readonly string[], cwd: string, before?: () => unknown): Promise<number> {
  const figures: number[] = [];
  for (let i = 0; i < runs; i++) {
    await before?.();
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
    const blameArgs = [cli, '--data-dir', rig.data, 'blame', rig.file];
    const again = await timed(runs, process.execPath, blameArgs, rig.repo);
    const oneMore = await timed(runs, process.execPath, blameArgs, rig.repo, rig.oneMoreWrite);
    const first = await timed(runs, process.execPath, blameArgs, rig.repo, () => fs.rmSync(path.join(rig.data, 'cache'), { recursive: true, force: true }));
    const gitBlame = await timed(runs, 'git', ['blame', '--', 'src/big.ts'], rig.repo);
    const floor = await timed(runs, process.execPath, ['-e', `require('fs').readFileSync(${JSON.stringify(rig.file)})`], rig.repo);
    const goal = (x: number) => `${ms(x)} (${x <= 300 ? 'met' : 'not met'}); ${(x / gitBlame).toFixed(2)}x git blame`;
    const table: Array<[string, string]> = [
      ['braid blame, new process, after one more turn wrote the file (<= 300 ms)', goal(oneMore)],
      ['braid blame again, nothing new since (<= 300 ms)', goal(again)],
      ['braid blame, the first of the file: no memo (<= 300 ms)', goal(first)],
      ['git blame of the same file, new process', ms(gitBlame)],
      ['floor: a new node process reading the file', `${ms(floor)}; braid (one more turn) ${(oneMore / floor).toFixed(2)}x`],
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
