// Fresh-process turn operations on a session log of about 100 MB shaped like real sessions:
// `braid rewind --turn N`, `undo-rewind`, `fork --turn N` and `show --json`, each a new
// `node dist/cli.js` process timed from spawn to exit beside its floor in a new node process. Run:
//   node scripts/run-ts.mjs bench/turnOps.ts [--mb 96] [--runs 5] [--as before|after] [--no-write]
// (or `npm run bench -- --turn-ops`, which builds dist/ first). Prints the table and fills one
// column (default `after`) of "Fresh-process turn operations on a 100 MB log" in bench/RESULTS.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { wasmPathIn } from '../test/support/store';
import { numberArg } from './benchInputs';
import { columnArg, measuredCommit, runNote, withColumnFigures, type ColumnSection } from './resultsSection';
import { buildStore, measureFork, measureRewind, measureShowJson, measureUndo, type Paired, type TurnOpsRig } from './turnOps/measureTurnOps';
import { sessionShape } from './turnOps/sessionShape';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const resultsFile = path.join(repoRoot, 'bench', 'RESULTS.md');

const TURN_OPS_SECTION: ColumnSection = { heading: '## Fresh-process turn operations on a 100 MB log', rowHeader: 'operation (goal)' };

const INTRO = [
  '`npm run bench -- --turn-ops` (`bench/turnOps.ts`; `-- --as before` fills the other column). One session whose main log',
  'is about 96 MB, turn after turn in the shape of real coding sessions: the sizes of prompts, of tool calls per turn, of tool',
  "outputs and of the model's texts drawn from the deciles of four real pi sessions (`../shared/real-sessions/pi/` when it is",
  'beside the repository, else the same figures built into `bench/turnOps/sessionShape.ts`). Each figure is the median of 5',
  'runs of a new `node dist/cli.js` process, from spawn to exit, beside its floor: a new node process doing the least the',
  'operation needs (`bench/turnOps/floors.mjs`), timed the same way in the same run. N is the middle turn. Each rewind, undo and',
  'fork runs on a fresh copy of the store, copied outside the clock. Growth: the bytes the session folder (its logs and state)',
  'grows by.',
].join('\n');

function ms(x: number): string {
  return x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${x.toFixed(0)} ms`;
}

function bytes(n: number): string {
  if (Math.abs(n) < 10 * 1024) return `${n.toLocaleString('en-US')} B`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** "1,234 ms; floor 600 ms: 2.06x (met)". */
function overFloor(p: Paired, goal: number): string {
  const ratio = p.ms / p.floorMs;
  return `${ms(p.ms)}; floor ${ms(p.floorMs)}: ${ratio.toFixed(2)}x (${ratio <= goal ? 'met' : 'not met'})`;
}

async function main(): Promise<void> {
  measuredCommit(repoRoot); // the commit as the run starts, named in its note
  const argv = process.argv.slice(2);
  const column = columnArg(argv);
  const mb = numberArg(argv, '--mb', 96, 1);
  const runs = numberArg(argv, '--runs', 5, 1);
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first (npm run bench does)');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-turn-ops-'));
  try {
    const shape = sessionShape(repoRoot);
    console.log(
      `shape: ${shape.source === 'real-sessions' ? 'read from ../shared/real-sessions/pi' : 'built in (no ../shared/real-sessions/pi beside the repository)'}`,
    );
    const store = await buildStore(path.join(scratch, 'store'), wasmPathIn(repoRoot), mb * 1024 * 1024, shape);
    const turns = store.spans.starts.length;
    const turn = Math.ceil(turns / 2);
    console.log(`log: ${bytes(store.bytes)}, ${turns} turns; N = ${turn}`);
    const rig: TurnOpsRig = { cli, floors: path.join(repoRoot, 'bench', 'turnOps', 'floors.mjs'), scratch, runs };
    const dropped = store.bytes - store.spans.starts[turn - 1]!;
    const kept = store.spans.ends[turn - 1]!;
    const rewind = measureRewind(rig, store, turn);
    console.log(`rewind: ${overFloor(rewind, 2)}`);
    const undo = measureUndo(rig, store, turn);
    console.log(
      `undo-rewind: ${ms(undo.ms)}, growth ${bytes(undo.undoGrowth)} (rewind ${bytes(undo.rewindGrowth)}), ${undo.cycles} cycles ${bytes(undo.cyclesGrowth)}`,
    );
    const fork = measureFork(rig, store, turn);
    console.log(`fork: ${overFloor(fork, 1.5)}`);
    const show = measureShowJson(rig, store);
    console.log(`show --json: ${overFloor(show, 1.3)}`);
    const met = (ok: boolean) => (ok ? 'met' : 'not met');
    const table: Array<[string, string]> = [
      ['rewind --turn N, vs reading the bytes it drops (<= 2x)', overFloor(rewind, 2)],
      ['undo-rewind after it: time', ms(undo.ms)],
      [
        'undo-rewind: growth at the undo (<= 1 KB)',
        `${bytes(undo.undoGrowth)} (${met(undo.undoGrowth <= 1024)}); the rewind before it: ${bytes(undo.rewindGrowth)}`,
      ],
      [`${undo.cycles} rewind/undo cycles: growth`, bytes(undo.cyclesGrowth)],
      ['fork --turn N, vs copying the kept bytes with fsync (<= 1.5x)', overFloor(fork, 1.5)],
      ['show --json, vs JSON.parse of every line (<= 1.3x)', overFloor(show, 1.3)],
    ];
    console.log(`\nFresh-process turn operations (${column}):`);
    for (const [what, value] of table) console.log(`  ${what}: ${value}`);
    if (argv.includes('--no-write')) return;
    const previous = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
    const detail = `a ${bytes(store.bytes)} log of ${turns} turns (shape: ${shape.source}), N = ${turn} (a rewind drops ${bytes(dropped)}, a fork keeps ${bytes(kept)}), ${runs} runs`;
    fs.writeFileSync(resultsFile, withColumnFigures(previous, TURN_OPS_SECTION, INTRO, table, column, runNote(repoRoot, detail)));
    console.log(`\nwrote the ${column} column of "${TURN_OPS_SECTION.heading.slice(3)}" in bench/RESULTS.md`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
