// Importing other agents' sessions (`npm run bench -- --import`): Claude Code session files made
// of real turns (bench/claudeSessions.ts, cached between runs) imported by importSessions, beside
// JSON.parse of every line of the same bytes read in the same 1 MB chunks (the floor):
// - 2,000 files over 50 projects (`--import-files N`): the import into a fresh store (MB/s of
//   source, sessions/s, the goal: a third of the floor's rate), a dry run, a re-import of the same
//   unchanged files, and `braid import` run as a person runs it (a new process, from its start);
// - one large session file, 1,000 MB by default (`--import-large-mb N`): its import's time and
//   peak resident memory beside the file's size (reading is to be streaming, memory bounded), and
//   the import again with V8's heap limited to a quarter of the file (what the import keeps, not
//   what the collector has yet to free).
// Each measure runs in a fresh lean child process (bench/programs/importMeasures.ts), so its peak
// memory is its own.
// `--quick`: 200 files and a 20 MB file, printed only; otherwise the section "Importing other
// agents' sessions" of bench/RESULTS.md is written (`--no-write`: print only).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sessionFiles } from './importMeasure';
import { cachedLargeSession, cachedSessionFiles, turnPool, type ClaudeSource, type TurnPool } from './claudeSessions';
import type { ImportFigures, ImportMeasure } from './importMeasure';
import { bundleProgramFiles } from './processes';
import { measuredCommit, runNote, sectionOf } from './resultsSection';
import { fmt, markdownTables, overFloor, plain, withGoal, type Row } from './table';
import { numberArg } from './benchInputs';

export const IMPORT_HEADING = "## Importing other agents' sessions";

/** The goal: an import at least a third of the floor's rate (JSON.parse of the same bytes). */
const GOAL_OF_FLOOR = 3;

interface ImportPlan {
  readonly files: number;
  readonly largeMb: number;
  readonly write: boolean;
}

function planOf(argv: readonly string[]): ImportPlan {
  const quick = argv.includes('--quick');
  return {
    files: numberArg(argv, '--import-files', quick ? 200 : 2_000),
    largeMb: numberArg(argv, '--import-large-mb', quick ? 20 : 1_000),
    write: !quick && !argv.includes('--no-write'),
  };
}

/**
 * Runs one measure in a fresh process of the bundled measure program (with `nodeArgs`, a heap
 * limit); its progress bar shows on our stderr. Its figures, or undefined when it failed.
 */
type InChild = (m: ImportMeasure, nodeArgs?: readonly string[]) => ImportFigures | undefined;

function childRunner(program: string, wasmPath: string): InChild {
  return (measure, nodeArgs = []) => {
    const r = spawnSync(process.execPath, [...nodeArgs, program, JSON.stringify({ measure, wasmPath })], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 << 20,
    });
    return r.status === 0 ? (JSON.parse(r.stdout.trim().split('\n').pop()!) as ImportFigures) : undefined;
  };
}

/** The figures of a measure that must succeed. */
function mustRun(inChild: InChild, m: ImportMeasure): ImportFigures {
  const figures = inChild(m);
  if (!figures) throw new Error(`the import measure ${m.kind} of ${m.source} failed (its error is above)`);
  return figures;
}

/** Reads every source byte once, untimed, so each measure reads from the page cache alike. */
function warmPageCache(source: string): void {
  const buffer = Buffer.allocUnsafe(1 << 20);
  for (const file of sessionFiles(source)) {
    const fd = fs.openSync(file, 'r');
    while (fs.readSync(fd, buffer, 0, buffer.length, null) > 0);
    fs.closeSync(fd);
  }
}

const mb = (bytes: number) => bytes / 1e6;
const cpu = (m: ImportFigures) => `CPU ${(m.cpuMs / 1000).toFixed(1)} s`;
/** MB/s, with a decimal below 10. */
const rate = (bytes: number, ms: number) => {
  const perSecond = mb(bytes) / (ms / 1000);
  return `${perSecond.toFixed(perSecond < 10 ? 1 : 0)} MB/s`;
};
const FLOOR = 'JSON.parse of every line, 1 MB chunks';
const PEER = 'each file read whole, split into lines, each JSON.parsed';

/** The import's row: against the floor, with the goal of a third of the floor's rate. */
function againstFloorAndGoal(what: string, m: ImportFigures, floor: ImportFigures, bytes: number): Row {
  const row = overFloor(what, m, FLOOR, floor);
  const goal = mb(bytes) / (floor.ms / 1000) / GOAL_OF_FLOOR;
  return withGoal(row, m.ms, floor.ms * GOAL_OF_FLOOR, `${GOAL_OF_FLOOR}x the floor's time (${goal.toFixed(0)} MB/s of source)`);
}

/** Throws when an import did not do what it was measured doing (every file imported, or every one unchanged). */
function expectAll(m: ImportFigures, action: 'imported' | 'unchanged', files: number, what: string): void {
  const done = m.actions?.[action] ?? 0;
  if (done !== files)
    throw new Error(
      `${what}: ${done} of ${files} files ${action}; outcomes ${JSON.stringify(m.actions)}; ${[...(m.reasons ?? []), ...(m.warnings ?? [])].join('; ')}`,
    );
}

/**
 * The first tenth's time and the last's. The files are imported folder by folder (project by
 * project), so the last tenth runs with every workspace's index loaded and the store full.
 */
function tenthsText(m: ImportFigures): string {
  const marks = m.tenthsMs ?? [];
  if (marks.length < 10) return '(fewer than 10 files)';
  const first = marks[0]!;
  const last = marks[9]! - marks[8]!;
  return `${fmt({ ms: first })}, then ${fmt({ ms: last })} (${(last / first).toFixed(1)}x)`;
}

/** The folder floor's name in the tables. */
const FOLDERS = 'every file written into a durable session folder of its own, published in batches as the importer does';

/** The 10k files: the floor, a dry run, the folder floor, the import into a fresh store, the re-import of the unchanged files. */
function manyFiles(inChild: InChild, source: ClaudeSource, stores: string, add: (row: Row) => void): void {
  const { projects, files, bytes } = source;
  const floor = mustRun(inChild, { kind: 'parse', source: projects });
  add(plain(`${FLOOR} (the floor): ${rate(bytes, floor.ms)}, ${floor.lines} lines`, fmt(floor)));
  const peer = mustRun(inChild, { kind: 'split', source: projects });
  add(overFloor(`${PEER} (the simplest peer): ${rate(bytes, peer.ms)}`, peer, FLOOR, floor));
  const dry = mustRun(inChild, { kind: 'import', source: projects, storeRoot: path.join(stores, 'dry-run'), dryRun: true });
  add(overFloor(`dry run (every file read and scanned, nothing written): ${rate(bytes, dry.ms)}, ${cpu(dry)}`, dry, FLOOR, floor));
  const folders = mustRun(inChild, { kind: 'folders', source: projects, storeRoot: path.join(stores, 'folders') });
  add(plain(`${FOLDERS} (the file system's floor): ${rate(bytes, folders.ms)}`, fmt(folders)));
  const storeRoot = path.join(stores, 'many');
  const first = mustRun(inChild, { kind: 'import', source: projects, storeRoot, dryRun: false });
  expectAll(first, 'imported', files, 'the import');
  const perSecond = (files / (first.ms / 1000)).toFixed(0);
  add(againstFloorAndGoal(`import into a fresh store: ${rate(bytes, first.ms)}, ${perSecond} sessions/s, ${cpu(first)}`, first, floor, bytes));
  add(overFloor('the import beside the file system’s floor', first, FOLDERS, folders));
  add(overFloor('the import beside the simplest peer’s parse alone', first, PEER, peer));
  const firstReport = `${fmt({ ms: first.firstProgressMs ?? first.ms })}, ${((100 * (first.firstProgressMs ?? first.ms)) / first.ms).toFixed(0)}% of the import`;
  add(plain('the import: its first progress report (the bar moves from then on)', firstReport));
  add(plain(`the import: its first and its last tenth of the files (${files / 10} each)`, tenthsText(first)));
  const again = mustRun(inChild, { kind: 'import', source: projects, storeRoot, dryRun: false });
  expectAll(again, 'unchanged', files, 'the re-import');
  add(againstFloorAndGoal(`re-import, every file unchanged: ${rate(bytes, again.ms)}, ${cpu(again)}`, again, floor, bytes));
}

/** A new Node process that reads every source file and JSON.parses each line (`each`: how a line reaches JSON.parse), timed from its start to its exit. */
const parseProgram = (each: string) =>
  `const fs=require('fs'),path=require('path');let n=0;const parse=(f)=>{${each}};const walk=(d)=>{for(const e of fs.readdirSync(d,{withFileTypes:true})){const f=path.join(d,e.name);if(e.isDirectory())walk(f);else if(f.endsWith('.jsonl'))parse(f);}};walk(process.argv[1]);console.log(n);`;
/** The floor: each line decoded on its own from the file's bytes. */
const FLOOR_PROGRAM = parseProgram(
  `const b=fs.readFileSync(f);let s=0;for(let e=b.indexOf(10);e!==-1;s=e+1,e=b.indexOf(10,s))if(e>s){JSON.parse(b.toString('utf8',s,e));n++;}`,
);
/** The simplest peer: the file read as text and split. */
const PEER_PROGRAM = parseProgram(`for(const l of fs.readFileSync(f,'utf8').split('\\n'))if(l){JSON.parse(l);n++;}`);

/** Wall time of a process from its start to its exit. */
function timedProcess(args: readonly string[]): { ms: number; status: number | null; stderr: string } {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, status: r.status, stderr: r.stderr };
}

/** `braid import` as a person runs it, in a new process from its start, beside a new process that only parses every line. */
function asCommand(cli: string, source: ClaudeSource, stores: string, add: (row: Row) => void): void {
  const floor = timedProcess(['-e', FLOOR_PROGRAM, source.projects]);
  const peer = timedProcess(['-e', PEER_PROGRAM, source.projects]);
  const run = timedProcess([cli, '--data-dir', path.join(stores, 'command'), 'import', '--from', 'claude-code', source.projects]);
  if (run.status !== 0) throw new Error(`braid import failed (exit ${run.status}): ${run.stderr.slice(-2000)}`);
  const what = 'a new node process that JSON.parses every line, each decoded on its own';
  const peerWhat = 'a new node process that reads each file as text, splits it and JSON.parses every line';
  add(plain(`${what} (the floor of a command): ${rate(source.bytes, floor.ms)}`, fmt(floor)));
  add(overFloor(`${peerWhat} (the simplest peer): ${rate(source.bytes, peer.ms)}`, peer, what, floor));
  const command = `\`braid import --from claude-code <folder>\` in a new process, from its start to its exit: ${rate(source.bytes, run.ms)}`;
  add(withGoal(overFloor(command, run, what, floor), run.ms, floor.ms * GOAL_OF_FLOOR, `${GOAL_OF_FLOOR}x the floor's time`));
  add(overFloor('the command beside the simplest peer', run, peerWhat, peer));
}

/** The large file: the floor, its import, its peak memory beside the file's size, and the import again under a heap limit. */
function largeFile(inChild: InChild, source: ClaudeSource & { file: string }, stores: string, add: (row: Row) => void): void {
  const floor = mustRun(inChild, { kind: 'parse', source: source.file });
  add(plain(`${FLOOR} (the floor): ${rate(source.bytes, floor.ms)}, ${floor.lines} lines`, fmt(floor)));
  const m = mustRun(inChild, { kind: 'import', source: source.file, storeRoot: path.join(stores, 'large'), dryRun: false });
  expectAll(m, 'imported', 1, 'the large import');
  add(againstFloorAndGoal(`import into a fresh store: ${rate(source.bytes, m.ms)}, ${cpu(m)}`, m, floor, source.bytes));
  const share = (100 * m.peakMb) / (source.bytes / 2 ** 20);
  add(
    plain(
      "the import's peak resident memory beside the file's size",
      `${m.peakMb.toFixed(0)} MB (${m.startMb.toFixed(0)} MB at its start)`,
      `the file: ${(source.bytes / 2 ** 20).toFixed(0)} MB`,
      `${share.toFixed(0)}% of it`,
    ),
  );
  // Resident memory also holds what V8 has not collected yet: a heap limit tells what the import keeps.
  const limitMb = Math.max(64, Math.round(mb(source.bytes) / 4));
  const capped = inChild({ kind: 'import', source: source.file, storeRoot: path.join(stores, 'large-capped'), dryRun: false }, [
    `--max-old-space-size=${limitMb}`,
  ]);
  const outcome = capped ? `${fmt(capped)}: completed` : 'ran out of memory';
  const ofFile = ((100 * limitMb) / (source.bytes / 2 ** 20)).toFixed(0);
  add(plain(`the same import with V8's heap limited to ${limitMb} MB (${ofFile}% of the file; --max-old-space-size)`, outcome));
}

const INTRO = `\`npm run bench -- --import\` (bench/import.ts): Claude Code session files made of real turns (bench/claudeSessions.ts: each turn taken whole, every record as Claude Code wrote it, from real transcripts: the real sessions beside the repository when that folder is there, else the project's fixtures the tool wrote; 4 to 36 turns a session, one in twenty up to 150; \`projects/<folder>/<uuid>.jsonl\`, one branch), so line lengths and tool outputs are real ones (the notes under each table give them). Imported by \`importSessions\` (\`--from claude-code\`, the store opened as \`braid import\` opens it; timed from the call to the store's close, which saves the index), and by \`braid import\` itself in a new process, timed from its start to its exit. Each measure runs in a fresh process, so its peak memory (VmHWM) is its own; the floor is JSON.parse of every line of the same bytes read in the same 1 MB chunks (bench/peers/patterns.ts, (e)), and for the command a new node process that does only that. Every byte was read once before the measures, so all read from the page cache. CPU: the process's user and system time (the rest of the wall time is waiting: fsyncs, and the other users of the machine's 2 cores). Goal: an import at least a third of the floor's rate (${GOAL_OF_FLOOR}x its time); memory bounded: a large file imported without holding it whole.`;

/** Where the time goes, from a CPU profile of the import of the 2,000 files; and why the goal is not met. */
const WHY = `Where the time goes (CPU profile, node --cpu-prof, of \`braid import\` of the 2,000 files, 495 MB, into a fresh store: 16.8 s of CPU):
- The file system, about 2.5 s: creating each session's folders and files, writing them, and the fsyncs of each batch (which run on libuv's threads while the next batch is built). The folder floor above is this part alone.
- JSON.parse of the source (1.4 s) and JSON.stringify of the records written (1.5 s): the import writes about as many bytes as it reads, so it pays the floor about twice before anything else.
- The index rows, about 2.1 s (sql.js: each session's row, its search text and usage rows), the SHA-256 of the source bytes and of the message ids (0.8 s), the fold of what is written (0.6 s), garbage collection (1.4 s), and the conversion itself (about 2 s).
- Why the goal (a third of the floor's rate) is not met: parsing the source, serializing what is written and writing it durably already take more than three times the parse alone (2.9 s of JSON work and 2.5 s of file system against a floor of 1.3 s), before the index. The floor itself is the one JSON.parse can do, each line decoded on its own from the read buffer; the benchmark used to split whole decoded chunks and allocate a buffer per file, 6.5 times slower on these lines, which is the floor the goal was set against (the import is about 0.6x that rate: see "the import beside the simplest peer's parse alone", the same kind of reading).`;

/** Where the real turns came from, for the run's note. */
function poolText(pool: TurnPool): string {
  const where =
    pool.name === 'real-sessions'
      ? 'the real sessions beside the repository'
      : "the project's fixtures Claude Code wrote (no real-sessions folder beside the repository)";
  return `${pool.prompts.length} prompts, ${pool.calls.length} steps with tool calls and ${pool.answers.length} closing answers of ${pool.files.length} transcripts in ${where}`;
}

/** The sessions' line lengths, as a sentence. */
function linesText(source: ClaudeSource): string {
  const { count, median, p90, max } = source.lines;
  return `Lines: ${count.toLocaleString('en')}, median ${median} bytes, 90th percentile ${p90}, longest ${max.toLocaleString('en')}.`;
}

/** The section of RESULTS.md: the intro, the run's note, the tables, and where the time goes. */
function sectionText(note: string, rows: readonly Row[], notes: Record<string, string>): string {
  return `${IMPORT_HEADING}\n\n${INTRO}\n\n${note}\n\n${markdownTables(rows, notes)}\n\n${WHY}\n`;
}

/** `markdown` with the import section replaced (or added at the end). */
function withImportSection(markdown: string, section: string): string {
  const old = sectionOf(markdown, IMPORT_HEADING);
  if (!old) return `${markdown.replace(/\n*$/, '\n\n')}${section}`;
  return markdown.replace(old, () => (old.endsWith('\n\n') ? `${section}\n` : section));
}

export async function importBench(argv: readonly string[], repoRoot: string, wasmPath: string, resultsFile: string): Promise<void> {
  measuredCommit(repoRoot); // the commit as the run starts, named in its note
  const plan = planOf(argv);
  const inChild = childRunner(path.join(await bundleProgramFiles(repoRoot, ['importMeasures']), 'importMeasures.cjs'), wasmPath);
  const started = Date.now();
  const say = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);
  const pool = turnPool(repoRoot);
  say(`turns from ${poolText(pool)} (${mb(pool.bytes).toFixed(1)} MB)`);
  const many = cachedSessionFiles(pool, plan.files, say);
  const large = cachedLargeSession(pool, plan.largeMb, say);
  say('reading the sources once (page cache)');
  warmPageCache(many.projects);
  warmPageCache(large.file);
  const measuring = Date.now();
  // The code measured is what is checked out now: the note names its commit (and load) before the measures begin.
  const note = `${runNote(repoRoot, `${plan.files} files and a ${plan.largeMb} MB file`)}; turns taken from ${poolText(pool)}`;
  const rows: Row[] = [];
  const notes: Record<string, string> = {};
  const group = (name: string) => (row: Row) => {
    rows.push({ ...row, group: name });
    say(`${name}: ${row.what}: ${row.braid}${row.against ? ` | ${row.against} | ${row.ratio}` : ''}`);
  };
  const load = () => os.loadavg()[0]!.toFixed(1);
  const stores = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-import-'));
  try {
    const manyName = `${plan.files.toLocaleString('en')} session files over 50 projects (${mb(many.bytes).toFixed(0)} MB)`;
    const manyLoad = load();
    manyFiles(inChild, many, stores, group(manyName));
    asCommand(path.join(repoRoot, 'dist', 'cli.js'), many, stores, group(manyName));
    notes[manyName] = `${linesText(many)} Load average ${manyLoad} at the start, ${load()} at the end.`;
    const largeName = `one session file of ${mb(large.bytes).toFixed(0)} MB`;
    const largeLoad = load();
    largeFile(inChild, large, stores, group(largeName));
    notes[largeName] = `${linesText(large)} Load average ${largeLoad} at the start, ${load()} at the end.`;
  } finally {
    fs.rmSync(stores, { recursive: true, force: true });
  }
  const section = sectionText(`${note}; ${((Date.now() - measuring) / 60_000).toFixed(1)} minutes of measuring`, rows, notes);
  console.log(`\n${section}`);
  if (!plan.write) return;
  const previous = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
  fs.writeFileSync(resultsFile, withImportSection(previous, section));
  console.log(`wrote "${IMPORT_HEADING.slice(3)}" in bench/RESULTS.md`);
}
