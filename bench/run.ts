// Braid's benchmarks (bench/README.md). `npm run bench`: generated stores of 1k, 10k and 100k
// realistic sessions over 50 workspaces (cached between runs, see cachedStore.ts) and logs of 1k,
// 10k and 100k records, each figure beside the peers' patterns or a floor measured in the same
// run; writes bench/RESULTS.md. `-- --quick`: 200 sessions over 10 workspaces and a 1 MB log,
// printed only (under 20 seconds once built). `-- --sessions 1000,10000` picks the stores;
// `-- --logs` runs only the log rows; `-- --turn-io` only the per-turn state I/O (bench/turnIo.ts;
// `--as before|after` picks its column); `-- --chat-paging` the Chat view paging in a real VS Code
// (bench/chatPaging.ts); `-- --startup` startup and the git context of a turn (bench/startup.ts);
// `-- --prefix` the prompt's prefix across a session's turns (bench/prefix.ts; `--as before|after`);
// `-- --turn-ops` rewind, undo, fork and show --json as new processes on a 100 MB log (bench/turnOps.ts; `--as before|after`);
// `-- --index-scale` list, search, index size, per-turn update, rebuild and git per turn on realistic stores of 1k and 10k
// sessions, as new processes beside head+stat, native SQLite and grep (bench/indexScale.ts; `--sizes`, `--runs`, `--quick`, `--as`);
// `-- --blame` braid blame of a 2,000-line file among 1,000 sessions beside git blame (bench/blame.ts; `--sessions`, `--runs`, `--as`);
// `-- --share` braid pull of 1,000 sessions beside git fetch and cp, and push after one more turn (bench/share.ts; `--sessions`, `--kb`, `--runs`, `--as`);
// `-- --huge-prompts` titles of first prompts of 100 KB to 60 MB (bench/hugePrompts.ts; `--as before|after`);
// `-- --import` importing Claude Code sessions (bench/import.ts; `--import-files N`, `--import-large-mb N`);
// `-- --drop-cache` deletes the cached stores at the end; `-- --no-write` prints without writing
// RESULTS.md; `-- --render` writes RESULTS.md again from the last full run's figures
// (out/bench/last-run.json) without measuring.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScriptedModelServer } from '../test/support/modelServer';
import { cacheRoot, dropCache, freeBytes } from './cachedStore';
import type { BenchContext } from './context';
import { bundlePrograms, inChild } from './processes';
import { resultsText, type RunFacts } from './results';
import { measureLogOf } from './sections/logs';
import { measureScale } from './sections/scale';
import type { Row } from './table';
import { CHAT_PAGING_SECTION, chatPagingBench } from './chatPaging';
import { sectionOf } from './resultsSection';
import { startupBench, startupChild } from './startup';
import { IMPORT_HEADING, importBench } from './import';
import { TURN_IO_SECTION } from './turnIo/runTurnIo';
import { INDEX_SCALE_SECTION, sizedScaleHeadings } from './indexScale/rig';
import { wasmPathIn } from '../test/support/store';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const wasmPath = wasmPathIn(repoRoot);
const resultsFile = path.join(repoRoot, 'bench', 'RESULTS.md');
const FORK_REWIND_HEADING = '## Fork, rewind and full replay';
const STARTUP_HEADING = '## Startup and the git context per turn';
const PREFIX_HEADING = '## Prompt prefix across turns';
const HUGE_PROMPTS_HEADING = '## Titles of huge first prompts';
const TURN_OPS_HEADING = '## Fresh-process turn operations on a 100 MB log';
const BLAME_HEADING = '## Blame of a 2,000-line file among 1,000 sessions';
/** The last full run's figures, from which `--render` writes RESULTS.md again. */
const savedRun = path.join(repoRoot, 'out', 'bench', 'last-run.json');
const previousResults = () => (fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n');

interface Plan {
  readonly quick: boolean;
  readonly scales: readonly number[];
  readonly workspaces: number;
  readonly logSizes: readonly number[];
  readonly write: boolean;
}

function planOf(argv: readonly string[]): Plan {
  const quick = argv.includes('--quick');
  const logsOnly = argv.includes('--logs');
  const at = argv.indexOf('--sessions');
  const chosen = at >= 0 ? argv[at + 1]!.split(',').map(Number) : undefined;
  if (chosen?.some((n) => !Number.isInteger(n) || n < 50)) throw new Error('--sessions takes counts of 50 or more, separated by commas');
  const scales = logsOnly ? [] : (chosen ?? (quick ? [200] : [1_000, 10_000, 100_000]));
  const logSizes = chosen ? [] : quick ? [1_000] : [1_000, 10_000, 100_000];
  return { quick, scales, workspaces: quick ? 10 : 50, logSizes, write: !quick && !logsOnly && !chosen && !argv.includes('--no-write') };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--startup-child') return startupChild(argv.slice(1), wasmPath);
  if (argv.includes('--turn-io')) return runTsBench('turnIo.ts', argv);
  if (argv.includes('--prefix')) return runTsBench('prefix.ts', argv);
  if (argv.includes('--turn-ops')) return runTsBench('turnOps.ts', argv, ['--mb', '--runs', '--no-write']);
  if (argv.includes('--blame')) return runTsBench('blame.ts', argv, ['--sessions', '--runs', '--no-write']);
  if (argv.includes('--share')) return runTsBench('share.ts', argv, ['--sessions', '--kb', '--runs', '--no-write']);
  if (argv.includes('--index-scale')) return runTsBench('indexScale.ts', argv, ['--sizes', '--runs', '--quick', '--no-write']);
  if (argv.includes('--huge-prompts')) return runTsBench('hugePrompts.ts', argv);
  if (argv.includes('--chat-paging')) return chatPagingBench(argv, repoRoot, resultsFile);
  if (argv.includes('--startup')) return startupBench(argv, repoRoot);
  if (argv.includes('--import')) return importBench(argv, repoRoot, wasmPath, resultsFile);
  if (argv.includes('--render')) return render();
  const plan = planOf(argv);
  const started = Date.now();
  const commit = commitOf(); // the code measured: what is checked out when the run starts
  const clock = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const loadAtStart = os.loadavg()[0]!;
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  const extensionBundle = path.join(repoRoot, 'dist', 'extension.js');
  if (!fs.existsSync(cli) || !fs.existsSync(extensionBundle)) throw new Error('dist/ is missing: run npm run build first (npm run bench does)');
  const server = new ScriptedModelServer(() => ({ kind: 'text', chunks: ['Hello', ' there.'], usage: { prompt: 12, completion: 3 } }));
  await server.start();
  const rows: Row[] = [];
  const notes: Record<string, string> = {};
  const programs = await bundlePrograms(repoRoot, !plan.quick);
  const ctx: BenchContext = {
    quick: plan.quick,
    wasmPath,
    cli,
    extensionBundle,
    programs,
    baseUrl: server.baseUrl,
    runs: plan.quick ? { warm: 20, fresh: 1, exec: 1, turns: 3 } : { warm: 50, fresh: 5, exec: 5, turns: 5 },
    measure: (program, ...kinds) =>
      inChild(
        programs[program],
        kinds.map(({ kind, args }) => ({ kind, args: { ...args, wasmPath } })),
      ),
    say: (line) => console.log(`[${clock()}] ${line}`),
    describe: (group, text) => {
      notes[group] = text;
    },
    add: (group, row) => {
      rows.push({ ...row, group });
      console.log(`[${clock()}] ${group}: ${row.what}: ${row.braid}${row.against ? ` | ${row.against} | ${row.ratio}` : ''}`);
    },
  };
  try {
    for (const count of plan.scales) await measureScale(ctx, count, plan.workspaces);
    for (const records of plan.logSizes) await measureLogOf(ctx, records);
  } finally {
    await server.close();
  }
  const seconds = (Date.now() - started) / 1000;
  const facts: RunFacts = {
    rows,
    notes,
    quick: plan.quick,
    scales: plan.scales,
    workspaces: plan.workspaces,
    commit,
    date: new Date().toISOString().slice(0, 10),
    machine: machine(),
    load: [loadAtStart, os.loadavg()[0]!],
    seconds,
  };
  const text = resultsText(facts);
  console.log(`\n${text}`);
  console.log(`(measured in ${seconds.toFixed(1)} s)`);
  if (argv.includes('--drop-cache') || freeBytes() < 10 * 2 ** 30) dropCache(ctx.say);
  else console.log(`(generated stores kept in ${cacheRoot()} for the next run; --drop-cache removes them)`);
  if (!plan.write) return;
  fs.writeFileSync(savedRun, `${JSON.stringify(facts, null, 1)}\n`);
  fs.writeFileSync(resultsFile, `${text}\n${keptSections(previousResults())}`);
  runTsBench('turnIo.ts', argv);
  runTsBench('prefix.ts', argv);
}

/** `--render`: RESULTS.md written again from the figures of the last full run (out/bench/last-run.json), measuring nothing. */
function render(): void {
  const facts = JSON.parse(fs.readFileSync(savedRun, 'utf8')) as RunFacts;
  fs.writeFileSync(resultsFile, `${resultsText(facts)}\n${keptSections(previousResults())}`);
  console.log(`wrote bench/RESULTS.md from the run of ${facts.date} (commit ${facts.commit})`);
}

/**
 * The sections of their own runs, kept as they were: fork and rewind before and after, per-turn
 * state I/O (which bench/turnIo.ts then fills), the Chat view paging, startup, importing, titles
 * of huge first prompts, fresh-process turn operations, blame, the index at scale (at every size run).
 */
function keptSections(previous: string): string {
  const kept = [
    FORK_REWIND_HEADING,
    TURN_IO_SECTION.heading,
    PREFIX_HEADING,
    CHAT_PAGING_SECTION.heading,
    STARTUP_HEADING,
    IMPORT_HEADING,
    HUGE_PROMPTS_HEADING,
    TURN_OPS_HEADING,
    BLAME_HEADING,
    INDEX_SCALE_SECTION.heading,
    ...sizedScaleHeadings(previous),
  ].map((heading) => sectionOf(previous, heading).replace(/\n*$/, '\n'));
  return kept.filter((k) => k.trim()).join('\n');
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.cpus().length} x ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/** The options runTsBench passes without a value. */
const FLAGS = ['--no-write', '--quick'];

/**
 * Runs a bench of its own process (bench/turnIo.ts, bench/prefix.ts, bench/turnOps.ts,
 * bench/hugePrompts.ts, bench/indexScale.ts), passing `--as` and the options named in `passed`
 * (`--no-write` and `--quick` alone, the others with their value).
 */
function runTsBench(file: string, argv: readonly string[], passed: readonly string[] = []): void {
  const args = ['--as', ...passed].flatMap((name) => {
    const at = argv.indexOf(name);
    if (at < 0) return [];
    return FLAGS.includes(name) ? [name] : [name, argv[at + 1] ?? ''];
  });
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'run-ts.mjs'), path.join(repoRoot, 'bench', file), ...args], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`bench/${file} failed (exit ${r.status})`);
}

/** The commit measured, marked when the working tree differs from it. */
function commitOf(): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).stdout.trim();
  return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' with uncommitted changes' : ''}`;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
