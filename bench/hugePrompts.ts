// Titles of huge first prompts: the time of a session's automatic title and of a line of the turn
// picker for first prompts of 100 KB, 1 MB and 60 MB. Run:
//   node scripts/run-ts.mjs bench/hugePrompts.ts [--deadline 60] [--as before|after] [--no-write]
// (or `npm run bench -- --huge-prompts`). Each measure runs in a worker thread stopped at the
// deadline (seconds), since a title made from the whole prompt took minutes. Prints the figures
// and fills one column (default `after`) of "Titles of huge first prompts" in bench/RESULTS.md.
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { autoTitle, cutTitle } from '../src/core/format/titles';
import { numberArg } from './benchInputs';
import { columnArg, measuredCommit, runNote, withColumnFigures, type ColumnSection } from './resultsSection';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const resultsFile = path.join(repoRoot, 'bench', 'RESULTS.md');

const SECTION: ColumnSection = { heading: '## Titles of huge first prompts', rowHeader: 'first prompt' };

const INTRO = [
  '`npm run bench -- --huge-prompts` (`bench/hugePrompts.ts`; `-- --as before` fills the other column). A first prompt of',
  'English text (a sentence of 57 characters repeated) of each size, made flat in memory before the clock starts; the',
  'time of its automatic title (`autoTitle`) and of its line in the turn picker (`cutTitle` at 120 characters), the',
  'median of 5 (one run when it takes over a second), in a worker thread stopped at the deadline. Before: the whole',
  'prompt flattened and segmented into characters; after: its start only (`src/core/format/textStart.ts`).',
].join('\n');

const SIZES = [
  { label: '100 KB', units: 100 * 1024 },
  { label: '1 MB', units: 1024 * 1024 },
  { label: '60 MB', units: 60 * 1024 * 1024 },
];
const HELPERS = { autoTitle: (text: string) => autoTitle(text), 'turn picker line': (text: string) => cutTitle(text, 120) };
type Helper = keyof typeof HELPERS;

interface Job {
  readonly helper: Helper;
  readonly units: number;
}

/** In the worker: the prompt made and flattened, then the helper timed. */
function measure({ helper, units }: Job): number {
  const shape = HELPERS[helper];
  shape('Warm up: the segmenter loads its data on first use.');
  const sentence = 'Please read the README and fix the failing tests in src. ';
  const text = sentence.repeat(Math.ceil(units / sentence.length)).slice(0, units);
  /\0/.test(text); // flat before the clock
  const times: number[] = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    shape(text);
    times.push(performance.now() - started);
    if (times[0]! > 1000) break;
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** The helper's time on a prompt of `units`, or undefined when the worker passed the deadline. */
function timed(job: Job, deadlineMs: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(__filename, { workerData: job });
    const timer = setTimeout(() => void worker.terminate().then(() => resolve(undefined)), deadlineMs);
    worker.once('message', (ms: number) => {
      clearTimeout(timer);
      void worker.terminate().then(() => resolve(ms));
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

const shown = (ms: number | undefined, deadline: number) =>
  ms === undefined ? `over ${deadline} s (stopped)` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;

async function main(): Promise<void> {
  measuredCommit(repoRoot); // the commit as the run starts, named in its note
  const argv = process.argv.slice(2);
  const column = columnArg(argv);
  const deadline = numberArg(argv, '--deadline', 60);
  const table: Array<[string, string]> = [];
  for (const helper of Object.keys(HELPERS) as Helper[]) {
    for (const size of SIZES) {
      const ms = await timed({ helper, units: size.units }, deadline * 1000);
      const row: [string, string] = [`${helper}, ${size.label}`, shown(ms, deadline)];
      console.log(`  ${row[0]}: ${row[1]}`);
      table.push(row);
    }
  }
  if (argv.includes('--no-write')) return;
  const previous = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
  fs.writeFileSync(resultsFile, withColumnFigures(previous, SECTION, INTRO, table, column, runNote(repoRoot, `deadline ${deadline} s`)));
  console.log(`\nwrote the ${column} column of "${SECTION.heading.slice(3)}" in bench/RESULTS.md`);
}

if (isMainThread) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  parentPort!.postMessage(measure(workerData as Job));
}
