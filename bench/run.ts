// Braid's benchmarks: `npm run bench` (1k, 10k and 100k sessions over 50 workspaces; logs of 1k,
// 10k and 100k records, the largest about 100 MB) or `npm run bench -- --quick` (1k sessions;
// logs of 1k and 10k records; under two minutes); `-- --logs` runs only the log measurements;
// `-- --turn-io` only the per-turn state I/O (bench/turnIo.ts; `--as before|after` picks its column);
// `-- --startup` only startup and the git context of a turn (bench/startup.ts; prints only);
// `-- --chat-paging` only the Chat view paging back through a long session in a real VS Code
// (bench/chatPaging.ts, which lists its own options). The peers' storage patterns (bench/peers/) run
// on the same data in the same run. Every figure is a median; each measurement runs in a fresh
// process so its peak memory is its own. Prints a markdown table and writes bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../src/core/logger';
import { SessionStore } from '../src/core/store/sessionStore';
import { turnEndOffset } from '../src/core/store/fork';
import type { MessageRecord } from '../src/core/wire/records';
import { scanWireLog } from '../src/core/wire/wireReader';
import { appendThroughWriter } from './append';
import { chatPagingBench } from './chatPaging';
import { generateLogOfRecords, generateSessions, turnRecords, withCompactions } from './generate';
import { measure, median, type Measured } from './measure';
import { rewriteWholeHistory } from './peers/patterns';
import { columnArg, type Column } from './resultsSection';
import { gitTurns, productionBundles, versionAgainstNode } from './startup';
import { DEFAULT_TURNS, runTurnIo, turnIoTable, withTurnIoResults } from './turnIo/runTurnIo';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const wasmPath = path.join(repoRoot, 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');
const extensionBundle = path.join(repoRoot, 'dist', 'extension.js');
const resultsFile = path.join(repoRoot, 'bench', 'RESULTS.md');
const previousResults = () => (fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n');

/** Runs a measurement in a fresh process. */
function inChild(kind: string, ...args: string[]): Measured {
  const r = spawnSync(process.execPath, [__filename, '--child', kind, ...args], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`measurement ${kind} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Measured;
}

/** The id of the prompt that began turn `turn` of a log (read here, so the measuring process does not). */
function promptOfTurn(log: string, turn: number): string {
  let id = '';
  scanWireLog(
    log,
    (r) => {
      const m = r as MessageRecord;
      if (!id && m.turn === turn && m.message.role === 'user') id = m.id;
    },
    { only: ['message'] },
  );
  return id;
}

const fmt = (m: Measured, digits = 1) => `${m.ms.toFixed(digits)} ms, ${m.peakMb.toFixed(0)} MB`;
const ratio = (peer: number, braid: number) => `${(peer / braid).toFixed(peer / braid >= 10 ? 0 : 1)}x`;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    const result = await measure(argv[1]!, argv.slice(2), wasmPath);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const turnIoColumn = columnArg(argv);
  if (argv.includes('--turn-io')) return writeTurnIo(previousResults(), turnIoColumn, DEFAULT_TURNS);
  if (argv.includes('--chat-paging')) return chatPagingBench(argv, repoRoot, resultsFile);
  if (argv.includes('--startup')) return printStartup(argv);
  const quick = argv.includes('--quick');
  // --logs: only the log measurements (replay, compaction, fork, rewind); prints, writes no RESULTS.md.
  const logsOnly = argv.includes('--logs');
  const scales = logsOnly ? [] : quick ? [1_000] : [1_000, 10_000, 100_000];
  const logSizes = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  if (!fs.existsSync(extensionBundle)) throw new Error('dist/extension.js is missing: run npm run build (or npm run package) first');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-'));
  const rows: string[][] = [];
  const add = (what: string, braid: string, peer = '', r = '') => {
    rows.push([what, braid, peer, r]);
    console.log(`${what}: ${braid}${peer ? ` | ${peer} | ${r}` : ''}`);
  };
  try {
    for (const count of scales) {
      const store = path.join(root, `store-${count}`);
      const started = Date.now();
      generateSessions(store, count, 50, 2);
      console.log(`(generated ${count} sessions in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
      const label = `${count / 1000}k sessions`;
      add(`${label}: index rebuild from disk`, fmt(inChild('rebuild', store), 0));
      const indexMb = fs.statSync(path.join(store, 'index.sqlite')).size / 1024 / 1024;
      add(`${label}: index load, cold (${indexMb.toFixed(1)} MB index.sqlite)`, fmt(inChild('index-load', store)));
      const list = inChild('list', store, '/bench/workspace-7');
      const peer = inChild('peer-list', store, '/bench/workspace-7');
      add(
        `${label}: first page (50) of one workspace`,
        `${list.ms.toFixed(2)} ms, ${list.peakMb.toFixed(0)} MB`,
        `(a) read every log: ${fmt(peer, 0)}`,
        ratio(peer.ms, list.ms),
      );
      add(`${label}: search, a word in ~1% of sessions`, `${inChild('search', store, 'module 42').ms.toFixed(2)} ms`);
      add(`${label}: search, words in most sessions`, `${inChild('search', store, 'compile widget').ms.toFixed(2)} ms`);
      add(`${label}: extension activation (load the bundle, open the store, first page)`, fmt(inChild('activation', store, extensionBundle), 0));
      fs.rmSync(store, { recursive: true, force: true });
    }

    for (const records of logSizes) {
      const storeRoot = path.join(root, `log-${records}`);
      const setup = await SessionStore.open({ root: storeRoot, wasmPath, logger: silentLogger, saveDelayMs: 0 });
      const session = await setup.create({ workspaceDir: '/bench/log' });
      const log = setup.layout.agentLog(setup.locate(session.id));
      const generated = generateLogOfRecords(log, records);
      setup.index.rereadFolder(setup.locate(session.id));
      await setup.close();
      const mb = generated.bytes / 1024 / 1024;
      const label = `${records / 1000}k-record log (${mb.toFixed(mb < 10 ? 1 : 0)} MB)`;
      const page = inChild('page', log);
      const openPeer = inChild('open-peer', log);
      add(`${label}: open the newest page (80)`, fmt(page, 2), `(c) parse whole log: ${fmt(openPeer, 0)}`, ratio(openPeer.ms, page.ms));
      const replay = inChild('replay', log);
      const floor = inChild('floor', log);
      add(
        `${label}: full replay (${(mb / (replay.ms / 1000)).toFixed(0)} MB/s)`,
        fmt(replay, 0),
        `(e) JSON.parse every line: ${fmt(floor, 0)}`,
        `${(replay.ms / floor.ms).toFixed(2)}x the floor`,
      );
      // Opening a session for the model replays from its latest compaction (docs/reference.md, Wire records).
      const compacted = path.join(root, 'compacted.jsonl');
      const compactedMb = withCompactions(log, compacted, 10) / 1024 / 1024;
      const plain = inChild('context', log);
      const tenCompactions = inChild('context', compacted);
      add(`${label}: replay for the model, no compaction`, fmt(plain, plain.ms < 10 ? 2 : 0));
      add(
        `${label}: replay for the model, 10 compactions (${compactedMb.toFixed(compactedMb < 10 ? 1 : 0)} MB)`,
        fmt(tenCompactions, 2),
        `no compaction: ${fmt(plain, plain.ms < 10 ? 2 : 0)}`,
        ratio(plain.ms, tenCompactions.ms),
      );
      add(`${label}: full replay, 10 compactions`, fmt(inChild('replay', compacted), 0));
      fs.rmSync(compacted);
      const turns = Math.floor(generated.records / 8);
      const middle = Math.max(1, Math.floor(turns / 2));
      const cut = turnEndOffset(log, middle) as { offset: number };
      const fork = inChild('fork', storeRoot, `${session.id}:${middle}`);
      const copy = inChild('copy', log, String(cut.offset));
      add(
        `${label}: fork at the middle turn`,
        fmt(fork, 0),
        `(d) in-process copy of the same ${(cut.offset / 1024 / 1024).toFixed(1)} MB, fsynced: ${fmt(copy, 0)}`,
        `${(fork.ms / copy.ms).toFixed(2)}x the copy`,
      );
      // A rewind drops the turns from the middle one on: the floor reads those bytes.
      const dropped = middle > 1 ? (turnEndOffset(log, middle - 1) as { offset: number }).offset : 0;
      const rewind = inChild('rewind', storeRoot, `${session.id}:${middle}:${promptOfTurn(log, middle)}`);
      const tail = inChild('read-range', log, String(dropped));
      add(
        `${label}: rewind to the middle turn`,
        fmt(rewind, 0),
        `(f) read the dropped ${((generated.bytes - dropped) / 1024 / 1024).toFixed(1)} MB: ${fmt(tail, 0)}`,
        `${(rewind.ms / tail.ms).toFixed(2)}x the read`,
      );
      fs.rmSync(storeRoot, { recursive: true, force: true });
    }

    // Appends as a session grows to 1,000 messages (250 turns of 4), with the real durability.
    const appended = await appendThroughWriter(path.join(root, 'append'), wasmPath, 250);
    const last = (xs: number[]) => median(xs.slice(-50));
    const peerMessages = Array.from({ length: 250 }, (_, t) =>
      turnRecords(t + 1, t + 1, 2_000)
        .filter((r) => r.t === 'message')
        .map((r) => (r as { message: object }).message),
    ).flat();
    const peerTimes = rewriteWholeHistory(path.join(root, 'peer-b'), peerMessages);
    add(
      'append a message at 1,000 messages (fsync at turn end)',
      `${last(appended.messageMs).toFixed(3)} ms`,
      `(b) rewrite whole history + global list: ${last(peerTimes).toFixed(2)} ms`,
      ratio(last(peerTimes), last(appended.messageMs)),
    );
    add('append a message with its own fsync', `${median(appended.durableMessageMs).toFixed(2)} ms`);
    add('a whole turn (4 messages, usage, fsynced turn_end, state.json, index)', `${last(appended.turnMs).toFixed(1)} ms`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const table = [
    '| measure | Braid (time, peak memory) | peer pattern | peer / Braid |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
  const text = `# Benchmark results\n\n${quick ? 'Quick run' : 'Full run'} (\`npm run bench${quick ? ' -- --quick' : ''}\`) on ${os.cpus().length} x ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.\nTimes are medians (50 runs for index queries, 3 to 5 for the rest); peak memory is the measuring process's own high-water mark (VmHWM).\nPeers: (a) list by reading every session's log; (b) rewrite a whole-JSON history file and a global history list per message; (c) open a session by parsing its whole log; (d) an in-process copy with fsync; (e) \`JSON.parse\` of every line; (f) reading the bytes a rewind drops.\n\n${table}\n`;
  console.log(`\n${text}`);
  // Per-turn state I/O keeps its own section: the other column (before or after) is carried over.
  // The Chat view paging and startup sections (their own runs) are carried over as they were.
  if (!logsOnly) await writeTurnIo(`${text}\n${keptSections(previousResults())}`, turnIoColumn, quick ? 5 : DEFAULT_TURNS);
}

/** The sections of RESULTS.md after the main table (per-turn state I/O, startup): kept by a full run, each rewritten only by its own bench or by hand. */
function keptSections(markdown: string): string {
  const start = markdown.indexOf('\n## ');
  return start < 0 ? '' : markdown.slice(start + 1);
}

/**
 * Startup (bench/startup.ts), printed: `braid version` against `node -e 0`, loading the extension
 * bundle, extension activation at `--sessions N` (100k) over 50 workspaces (in `--store DIR`, kept,
 * when given), the git context per turn.
 */
async function printStartup(argv: readonly string[]): Promise<void> {
  const { dist, built } = productionBundles(repoRoot, argv);
  const sessions = argv.includes('--sessions') ? Number(argv[argv.indexOf('--sessions') + 1]) : 100_000;
  // --store DIR: a store of that many sessions kept between runs (generated there when missing), for before and after.
  const kept = argv.includes('--store') ? path.resolve(argv[argv.indexOf('--store') + 1]!) : undefined;
  const store = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-startup-'));
  const rows: Array<[string, string]> = [];
  const add = (what: string, value: string) => {
    rows.push([what, value]);
    console.log(`${what}: ${value}`);
  };
  try {
    const { node, version } = versionAgainstNode(dist);
    add('`node -e 0` (median of 20 fresh processes)', `${node.toFixed(0)} ms`);
    add('`braid version` (median of 20 fresh processes)', `${version.toFixed(0)} ms, ${(version / node).toFixed(2)}x \`node -e 0\``);
    const bundle = path.join(dist, 'extension.js');
    const kib = (fs.statSync(bundle).size / 1024).toFixed(0);
    const loads = [0, 1, 2, 3, 4].map(() => inChild('bundle-load', bundle));
    add(`load dist/extension.js (${kib} KiB; median of 5 fresh processes)`, `${median(loads.map((m) => m.ms)).toFixed(0)} ms`);
    if (!fs.existsSync(path.join(store, 'sessions'))) generateSessions(store, sessions, 50, 2);
    inChild('activation', store, bundle); // builds the workspace's index: later runs load it, as every activation after the first does
    const activations = [0, 1, 2].map(() => inChild('activation', store, bundle));
    add(
      `${sessions / 1000}k sessions: extension activation (load the bundle, open the store as the extension does, first page; median of 3)`,
      `${median(activations.map((m) => m.ms)).toFixed(0)} ms, ${median(activations.map((m) => m.peakMb)).toFixed(0)} MB`,
    );
    for (const [what, value] of await gitTurns()) add(what, value);
  } finally {
    if (built) fs.rmSync(dist, { recursive: true, force: true });
    if (!kept) fs.rmSync(store, { recursive: true, force: true });
  }
  const note = `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown CPU'}, load average ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version}`;
  console.log(`\n${note}\n\n| measure | figure |\n| --- | --- |\n${rows.map(([m, f]) => `| ${m} | ${f} |`).join('\n')}\n`);
}

/** Measures per-turn state I/O, prints its table, and writes RESULTS.md as `base` with the figures in `column`. */
async function writeTurnIo(base: string, column: Column, turns: number): Promise<void> {
  const results = await runTurnIo(wasmPath, turns);
  console.log(`Per-turn state I/O (${turns} turns):\n\n${turnIoTable(results)}`);
  fs.writeFileSync(resultsFile, withTurnIoResults(base, results, column, repoRoot));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
