// Sessions through git, as new processes on this machine: `braid pull` of 1,000 sessions (about
// 150 MB of logs) from a bare repository over file:// beside `git fetch` of the same refs into an
// empty repository and a copy of the same logs with `cp -r` (the floors of the transfer and of the
// import), and `braid push` after one more turn: what reaches the remote beside the turn's bytes.
// Run:
//   node scripts/run-ts.mjs bench/share.ts [--sessions 1000] [--kb 150] [--runs 3] [--as before|after] [--no-write] [--keep]
// (or `npm run bench -- --share`, which builds dist/ first). Prints the table and fills one column
// (default `after`) of "Sessions through git" in bench/RESULTS.md.
//
// The store: sessions of one workspace, each a main log of about --kb KB of turns in the shape of
// real sessions (turnOps/sessionShape.ts), written through the log writer's serializer; pushed once
// with `braid push --all` (timed, reported) before the pulls are measured.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../test/support/store';
import { numberArg, random } from './benchInputs';
import { columnArg, measuredCommit, runNote, withColumnFigures, type ColumnSection } from './resultsSection';
import { median } from './table';
import { WireLogWriter } from '../src/core/wire/wireLog';
import { appendShapedTurns, shapedTurn } from './turnOps/generateSession';
import { sessionShape, type SessionShape } from './turnOps/sessionShape';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const resultsFile = path.join(repoRoot, 'bench', 'RESULTS.md');
const cli = path.join(repoRoot, 'dist', 'cli.js');
const SECTION: ColumnSection = { heading: '## Sessions through git', rowHeader: 'measure (goal)' };
const INTRO = [
  '`npm run bench -- --share` (`bench/share.ts`; `-- --as before` fills the other column). One workspace of 1,000 sessions,',
  'each a main log of about 150 KB in the shape of real sessions, pushed once to a bare repository on this machine',
  '(file://). Pull: the median of 3 runs of a new `braid pull` into an empty data folder, beside `git fetch` of the same',
  'refs into an empty bare repository (the transfer) and the import of the same logs without git: `cp -r` of their',
  'folders and `braid rebuild-index` of the copy (in the same run; the goal is 2x the fetch plus that import). Push after one more turn: one turn appended to one session as the writer writes it, then `braid push --all`',
  'as a new process; the bytes the remote gained beside the bytes the turn added to the log.',
].join('\n');

interface Rig {
  readonly scratch: string;
  readonly workspaceA: string;
  readonly dataA: string;
  readonly remote: string;
  readonly logBytes: number;
  readonly firstLog: string;
}

async function buildRig(scratch: string, sessions: number, kb: number, shape: SessionShape): Promise<Rig> {
  const workspaceA = path.join(scratch, 'a', 'project');
  fs.mkdirSync(workspaceA, { recursive: true });
  const dataA = path.join(scratch, 'a', 'data');
  const store = await openStore(dataA);
  let logBytes = 0;
  let firstLog = '';
  for (let s = 0; s < sessions; s++) {
    const state = await store.create({ workspaceDir: workspaceA });
    const log = store.layout.agentLog(store.locate(state.id));
    appendShapedTurns(log, Math.round(kb * 1024 * (0.5 + random(s + 1)())), shape);
    logBytes += fs.statSync(log).size;
    firstLog ||= log;
  }
  await store.close();
  const remote = path.join(scratch, 'remote.git');
  execFileSync('git', ['init', '--bare', '-q', remote]);
  return { scratch, workspaceA, dataA, remote, logBytes, firstLog };
}

function braid(data: string, cwd: string, ...args: string[]): void {
  const r = spawnSync(process.execPath, [cli, '--data-dir', data, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`braid ${args.join(' ')} failed: ${r.error ? String(r.error) : `${r.stderr}${r.stdout.slice(-2000)}`}`);
}

/** Milliseconds of `run`, a new process started and awaited inside it. */
function clock(run: () => void): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  return total;
}

/** One turn more in a session's log, as the writer appends it: the median of 21 turns drawn in the shape of the others; its bytes. */
function appendOneTurn(log: string, shape: SessionShape): number {
  const ts = 1_770_000_000_000;
  const drawn = Array.from({ length: 21 }, (_, i) =>
    shapedTurn(999, ts, shape, random(99 + i))
      .map((r) => WireLogWriter.serialize(r, ts).line)
      .join(''),
  ).sort((a, b) => a.length - b.length);
  const text = drawn[10]!;
  fs.appendFileSync(log, text);
  return Buffer.byteLength(text);
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function main(): Promise<void> {
  measuredCommit(repoRoot);
  const argv = process.argv.slice(2);
  const column = columnArg(argv);
  const sessions = numberArg(argv, '--sessions', 1000, 2);
  const kb = numberArg(argv, '--kb', 95, 1); // about 150 KB a session: a log is written turn by turn past its size
  const runs = numberArg(argv, '--runs', 3, 1);
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first (npm run bench does)');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-share-'));
  try {
    const shape = sessionShape(repoRoot);
    const rig = await buildRig(scratch, sessions, kb, shape);
    const url = `file://${rig.remote}`;
    const firstPush = clock(() => braid(rig.dataA, rig.workspaceA, 'push', '--all', '--remote', url));
    console.log(
      `store: ${sessions} sessions, ${mb(rig.logBytes)} of logs; the first push --all took ${s(firstPush)}; the remote holds ${mb(bytesUnder(rig.remote))}`,
    );

    const pulls: number[] = [];
    const fetches: number[] = [];
    const copies: number[] = [];
    const indexings: number[] = [];
    for (let i = 0; i < runs; i++) {
      const b = path.join(scratch, `b${i}`);
      const workspaceB = path.join(b, 'project');
      fs.mkdirSync(workspaceB, { recursive: true });
      pulls.push(clock(() => braid(path.join(b, 'data'), workspaceB, 'pull', '--remote', url)));
      const bare = path.join(b, 'fetched.git');
      execFileSync('git', ['init', '--bare', '-q', bare]);
      fetches.push(clock(() => execFileSync('git', ['--git-dir', bare, 'fetch', '--quiet', '--no-tags', url, '+refs/braid/*:refs/braid/*'])));
      const copied = path.join(b, 'copied');
      fs.mkdirSync(copied);
      copies.push(clock(() => execFileSync('cp', ['-r', path.join(rig.dataA, 'sessions'), path.join(copied, 'sessions')])));
      indexings.push(clock(() => braid(copied, rig.workspaceA, 'rebuild-index')));
      fs.rmSync(b, { recursive: true, force: true });
    }
    const pull = median(pulls);
    const fetch = median(fetches);
    const copy = median(copies);
    const indexing = median(indexings);
    const floor = fetch + copy + indexing;

    const before = bytesUnder(rig.remote);
    const turnBytes = appendOneTurn(rig.firstLog, shape);
    const push = clock(() => braid(rig.dataA, rig.workspaceA, 'push', '--all', '--remote', url));
    const gained = bytesUnder(rig.remote) - before;

    const table: Array<[string, string]> = [
      [
        `braid pull of ${sessions} sessions (${mb(rig.logBytes)}), new process (<= 2x git fetch + import)`,
        `${s(pull)} (${pull <= 2 * fetch + copy + indexing ? 'met' : 'not met'}: ${(pull / floor).toFixed(2)}x fetch + copy + index)`,
      ],
      ['git fetch of the same refs into an empty repository', `${s(fetch)}; braid ${(pull / fetch).toFixed(2)}x`],
      ['the import: cp -r of the same logs', s(copy)],
      ['the import: braid rebuild-index of the copied sessions', s(indexing)],
      ['push --all after one more turn in one session, new process', s(push)],
      [
        'bytes the remote gained (~ the turn, not the session)',
        `${kib(gained)} for a turn of ${kib(turnBytes)} (session: ${kib(fs.statSync(rig.firstLog).size)})`,
      ],
      ['first push --all of every session, new process', s(firstPush)],
    ];
    console.log(`\nSessions through git (${column}):`);
    for (const [what, value] of table) console.log(`  ${what}: ${value}`);
    if (argv.includes('--no-write')) return;
    const previous = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
    const detail = `${sessions} sessions, ${mb(rig.logBytes)} (shape: ${shape.source}), ${runs} runs`;
    fs.writeFileSync(resultsFile, withColumnFigures(previous, SECTION, INTRO, table, column, runNote(repoRoot, detail)));
    console.log(`\nwrote the ${column} column of "${SECTION.heading.slice(3)}" in bench/RESULTS.md`);
  } finally {
    if (argv.includes('--keep')) console.log(`kept the store and the remote in ${scratch}`);
    else fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
