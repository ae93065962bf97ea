// The index at scale (issue 37): what users type, each a new process timed from spawn to exit
// beside its peers in the same run, on realistic stores of 1k and 10k sessions over 50
// workspaces (bench/indexScale/realisticStore.ts, cached between runs). Run:
//   node scripts/run-ts.mjs bench/indexScale.ts [--sizes 1000,10000] [--runs 3] [--quick] [--as before|after] [--no-write]
// (or `npm run bench -- --index-scale`, which builds dist/ first). `--quick`: 200 sessions over 10
// workspaces, long sessions of 100 turns, 1 run, the prompt word's searches only, printed only. Otherwise prints the table and fills
// one column (default `after`) of "Index at scale" in bench/RESULTS.md (other `--sizes` than 1k and
// 10k fill a section of their own, named by the sizes).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScriptedModelServer } from '../test/support/modelServer';
import { wasmPathIn } from '../test/support/store';
import { numberArg } from './benchInputs';
import { listRows, rebuildRow, searchRows, sizeRow } from './indexScale/measureCommands';
import { gitRow, turnRows } from './indexScale/measureTurns';
import { nativeSqlite } from './indexScale/nativeSqlite';
import { realisticStore, roomFor } from './indexScale/realisticStore';
import { DEFAULT_SIZES, scaleSectionOf, sizeLabel, type ScaleRig, type ScaleRow } from './indexScale/rig';
import { LONG_TURNS, storeShape } from './indexScale/storeShape';
import { columnArg, measuredCommit, runNote, withColumnFigures } from './resultsSection';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const resultsFile = path.join(repoRoot, 'bench', 'RESULTS.md');

const introOf = (sizes: readonly number[]) =>
  [
    `\`npm run bench -- --index-scale\` (\`bench/indexScale.ts\`; \`-- --as before\` fills the other column). Realistic stores of ${sizes.map(sizeLabel).join(' and ')}`,
    'sessions over 50 workspaces (`bench/indexScale/realisticStore.ts`): 3 to 36 turns with a tail to 150, about two tool calls',
    'a turn, tool outputs log-normal around 1 KB with a tail to 64 KB, prompts and answers sized as real pi sessions',
    '(`../shared/real-sessions/pi/` when beside the repository, else built-in figures), a few sessions of 1,000 turns, and two words',
    'planted in 2% of sessions each, one in a prompt, one in a tool output. Each figure is the median of 3 new processes (`node',
    'dist/cli.js`, spawn to exit; the rebuild 1) beside its peers in the same run: head+stat (a new node process reading the first line',
    'of each log and stat-ing it, newest 50), native SQLite (the `sqlite3` command line on a Codex-style `threads` table of the same',
    'sessions), `grep -rlw` over the same logs (it lists every file; `braid search` shows the newest 50 matches), reading every log.',
    'The per-turn rows run on a copy of the measured workspace; the index write alone is the one figure taken in process.',
  ].join('\n');

interface Plan {
  readonly quick: boolean;
  readonly sizes: readonly number[];
  readonly workspaces: number;
  readonly longTurns: number;
  readonly runs: number;
  readonly write: boolean;
}

function planOf(argv: readonly string[]): Plan {
  const quick = argv.includes('--quick');
  const at = argv.indexOf('--sizes');
  const sizes = at >= 0 ? argv[at + 1]!.split(',').map(Number) : quick ? [200] : DEFAULT_SIZES;
  if (sizes.some((n) => !Number.isInteger(n) || n < 100)) throw new Error('--sizes takes counts of 100 or more, separated by commas');
  return {
    quick,
    sizes,
    workspaces: quick ? 10 : 50,
    longTurns: quick ? 100 : LONG_TURNS,
    runs: numberArg(argv, '--runs', quick ? 1 : 3, 1),
    write: !quick && !argv.includes('--no-write'),
  };
}

async function main(): Promise<void> {
  measuredCommit(repoRoot); // the commit as the run starts, named in its note
  const argv = process.argv.slice(2);
  const column = columnArg(argv);
  const plan = planOf(argv);
  const started = Date.now();
  const say = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first (npm run bench does)');
  const shape = storeShape(repoRoot);
  const sqlite = nativeSqlite();
  const loadAtStart = os.loadavg()[0]!;
  say(
    `shape: prompts and answers ${shape.turn.source === 'real-sessions' ? 'read from ../shared/real-sessions/pi' : 'built in (no ../shared/real-sessions/pi beside the repository)'}; native SQLite: ${sqlite.name}`,
  );
  const server = new ScriptedModelServer(() => ({ kind: 'text', chunks: ['Done: ', 'the next step is in place.'], usage: { prompt: 1200, completion: 300 } }));
  await server.start();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-index-scale-'));
  const rig: ScaleRig = {
    cli,
    peers: path.join(repoRoot, 'bench', 'indexScale', 'peers.mjs'),
    runs: plan.runs,
    sqlite,
    baseUrl: server.baseUrl,
    wasmPath: wasmPathIn(repoRoot),
    scratch,
    say,
  };
  const rows: ScaleRow[] = [];
  const skipped: string[] = [];
  const add = (row: ScaleRow) => {
    rows.push(row);
    say(`${row[0]}: ${row[1]}`);
  };
  try {
    for (const count of plan.sizes) {
      const refusal = roomFor(count, { workspaces: plan.workspaces, longTurns: plan.longTurns, shape });
      if (refusal) {
        say(refusal);
        skipped.push(sizeLabel(count));
        continue;
      }
      const store = realisticStore(count, plan.workspaces, plan.longTurns, shape, say);
      say(
        `${sizeLabel(count)} sessions over ${plan.workspaces} workspaces (${fs.readdirSync(store.current.sessions).filter((n) => n.startsWith('ses_')).length} in the one measured)`,
      );
      add(await rebuildRow(rig, store));
      add(sizeRow(store));
      for (const row of await listRows(rig, store)) add(row);
      for (const row of await searchRows(rig, store, plan.quick)) add(row);
      for (const row of await turnRows(rig, store)) add(row);
    }
    add(await gitRow(rig));
  } finally {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const load = `load average ${loadAtStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;
  console.log(`\nIndex at scale (${column}; ${load}; ${((Date.now() - started) / 1000).toFixed(0)} s):`);
  for (const [what, value] of rows) console.log(`  ${what}: ${value}`);
  if (!plan.write) return;
  if (skipped.length > 0) {
    console.log(`\nbench/RESULTS.md left as it was: the ${skipped.join(' and ')} store${skipped.length > 1 ? 's were' : ' was'} not measured`);
    return;
  }
  const previous = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
  const detail = `${plan.sizes.map(sizeLabel).join(' and ')} sessions, shape ${shape.turn.source}, ${sqlite.name}, ${plan.runs} runs, ${load}`;
  fs.writeFileSync(resultsFile, withColumnFigures(previous, scaleSectionOf(plan.sizes), introOf(plan.sizes), rows, column, runNote(repoRoot, detail)));
  console.log(`\nwrote the ${column} column of "${scaleSectionOf(plan.sizes).heading.slice(3)}" in bench/RESULTS.md`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
