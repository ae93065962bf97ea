// Per-turn state I/O: state.json writes and reads, fsyncs, locks and index saves per turn of a real
// Session, with and without the Chat view's consumer, and the whole-turn time. Run:
//   node scripts/run-ts.mjs bench/turnIo.ts [--turns 20] [--as before|after] [--no-write]
// Prints the tables and fills one column (default `after`) of "Per-turn state I/O" in bench/RESULTS.md.
import fs from 'node:fs';
import path from 'node:path';
import { columnArg, measuredCommit } from './resultsSection';
import { DEFAULT_TURNS, runTurnIo, turnIoBreakdown, turnIoTable, withTurnIoResults } from './turnIo/runTurnIo';
import { wasmPathIn } from '../test/support/store';
import { numberArg } from './benchInputs';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const wasmPath = wasmPathIn(repoRoot);
const resultsFile = path.join(repoRoot, 'bench', 'RESULTS.md');

async function main(): Promise<void> {
  measuredCommit(repoRoot); // the commit as the run starts, named in its note
  const argv = process.argv.slice(2);
  const column = columnArg(argv);
  const turns = numberArg(argv, '--turns', DEFAULT_TURNS);
  const results = await runTurnIo(wasmPath, turns);
  console.log(`Per turn, mean of ${turns} turns after a warm-up:\n\n${turnIoTable(results)}\n\nEvery counted fs call per turn:\n\n${turnIoBreakdown(results)}`);
  if (argv.includes('--no-write')) return;
  const previous = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
  fs.writeFileSync(resultsFile, withTurnIoResults(previous, results, column, repoRoot));
  console.log(`\nwrote the ${column} column of "Per-turn state I/O" in bench/RESULTS.md`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
