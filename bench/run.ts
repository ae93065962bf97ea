// Braid's store benchmarks: `npm run bench` (10k sessions, a 100 MB log) or `npm run bench -- --quick`
// (1k sessions, a 10 MB log). Prints a markdown table with medians and writes bench/RESULTS.md.
// Peers' patterns run on the same data in the same run: listing by reading every log, and
// opening or replaying a log by parsing all of it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SessionIndex } from '../src/core/index/sessionIndex';
import { forkSession, turnEndOffset } from '../src/core/store/fork';
import { SessionStore } from '../src/core/store/sessionStore';
import { silentLogger } from '../src/core/logger';
import { StoreLayout } from '../src/core/store/layout';
import { readNewestPage } from '../src/core/wire/newestPage';
import { HistoryBuilder } from '../src/core/wire/replay';
import { scanWireLog } from '../src/core/wire/wireReader';
import { workspaceKey } from '../src/core/workspace/workspaceKey';
import { generateLargeLog, generateSessions } from './generate';
import { appendThroughWriter } from './append';
import { turnRecords } from './generate';
import { listByReadingEveryLog, openByParsingWholeLog, parseEveryLine, rewriteWholeHistory } from './peers/patterns';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const wasmPath = path.join(repoRoot, 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time<T>(fn: () => T): { ms: number; value: T } {
  const start = process.hrtime.bigint();
  const value = fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

async function timeAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/**
 * Peak resident memory of this process in MB. VmHWM from /proc is this process image's own high
 * water mark; getrusage's maxRSS would also count the parent's memory at fork time on Linux.
 */
function peakRssMb(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) / 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024;
}

function runs<T>(n: number, fn: () => T): number {
  return median(Array.from({ length: n }, () => time(fn).ms));
}

/** Child mode: a cold index load (wasm init included) in a fresh process. */
async function childIndexLoad(root: string): Promise<void> {
  const { ms, value } = await timeAsync(() => SessionIndex.open({ layout: new StoreLayout(root), wasmPath, logger: silentLogger }));
  const count = value.count({});
  await value.close();
  process.stdout.write(JSON.stringify({ ms, value: count, maxRssMb: peakRssMb(), baseRssMb: 0 }));
}

/** Child mode: one measurement in a fresh process, so peak memory (maxRSS) is its own. */
function child(kind: string, file: string): void {
  const before = process.memoryUsage().rss;
  const { ms, value } = time(() => {
    if (kind === 'page') return readNewestPage(file, 80).messages.length;
    if (kind === 'index-cold') throw new Error('async');
    if (kind === 'open-peer') return openByParsingWholeLog(file, 80).length;
    if (kind === 'replay') {
      const b = new HistoryBuilder();
      scanWireLog(file, (r) => b.add(r));
      return b.build().messages.length;
    }
    return parseEveryLine(file);
  });
  process.stdout.write(JSON.stringify({ ms, value, maxRssMb: peakRssMb(), baseRssMb: before / 1024 / 1024 }));
}

function inChild(kind: string, file: string, repeat: number): { ms: number; maxRssMb: number; baseRssMb: number } {
  const results = Array.from({ length: repeat }, () => {
    const r = spawnSync(process.execPath, [__filename, '--child', kind, file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout) as { ms: number; maxRssMb: number; baseRssMb: number };
  });
  return { ms: median(results.map((r) => r.ms)), maxRssMb: median(results.map((r) => r.maxRssMb)), baseRssMb: median(results.map((r) => r.baseRssMb)) };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') return argv[1] === 'index-cold' ? childIndexLoad(argv[2]!) : child(argv[1]!, argv[2]!);
  const quick = argv.includes('--quick');
  const sessions = quick ? 1_000 : 10_000;
  const logBytes = quick ? 10 * 1024 * 1024 : 100 * 1024 * 1024;
  const repeat = quick ? 3 : 5;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-'));
  const rows: string[][] = [];
  const add = (what: string, braid: string, peer = '', ratio = '') => {
    rows.push([what, braid, peer, ratio]);
    console.log(`${what}: ${braid}${peer ? ` | peer ${peer} | ${ratio}` : ''}`);
  };
  try {
    console.log(`generating ${sessions} sessions over 50 workspaces...`);
    const gen = time(() => generateSessions(root, sessions, 50, 2));
    console.log(`  ${gen.ms.toFixed(0)} ms`);
    const layout = new StoreLayout(root);

    const rebuild = await timeAsync(async () => {
      const index = await SessionIndex.open({ layout, wasmPath, logger: silentLogger });
      await index.close();
    });
    add(`index rebuild from disk (${sessions} sessions)`, `${rebuild.ms.toFixed(0)} ms`);
    const indexBytes = fs.statSync(layout.indexFile).size;

    const loads: number[] = [];
    let index!: SessionIndex;
    for (let i = 0; i < repeat; i++) {
      if (index) await index.close();
      const t = await timeAsync(() => SessionIndex.open({ layout, wasmPath, logger: silentLogger }));
      loads.push(t.ms);
      index = t.value;
    }
    const cold = inChild('index-cold', root, repeat);
    add(`index load (${(indexBytes / 1024 / 1024).toFixed(1)} MB index.sqlite)`, `${median(loads).toFixed(1)} ms warm, ${cold.ms.toFixed(0)} ms cold (wasm init), peak RSS ${cold.maxRssMb.toFixed(0)} MB`);

    const key = workspaceKey('/bench/workspace-7');
    const page = runs(50, () => index.list({ workspaceKey: key, limit: 50 }));
    const peerList = runs(repeat, () => listByReadingEveryLog(layout.sessionsDir, '/bench/workspace-7', 50));
    add('first page (50) of one workspace', `${page.toFixed(2)} ms`, `${peerList.toFixed(0)} ms (a: read every log)`, `${(peerList / page).toFixed(0)}x faster`);
    const search = runs(50, () => index.search('compile widget', { limit: 50 }));
    add('search, words in most sessions (all workspaces)', `${search.toFixed(2)} ms`);
    const rare = runs(50, () => index.search('module 42', { limit: 50 }));
    add('search, words in ~1% of sessions (all workspaces)', `${rare.toFixed(2)} ms`);
    const scoped = runs(50, () => index.search('compile widget', { workspaceKey: key, limit: 50 }));
    add('search, words in most sessions (one workspace)', `${scoped.toFixed(2)} ms`);
    await index.close();

    const bigLog = path.join(root, 'big', 'wire.jsonl');
    const generated = generateLargeLog(bigLog, logBytes);
    const mb = generated.bytes / 1024 / 1024;
    console.log(`large log: ${mb.toFixed(0)} MB, ${generated.records} records`);
    const pageRun = inChild('page', bigLog, repeat);
    const openPeer = inChild('open-peer', bigLog, repeat);
    add(`open newest page (80) of a ${mb.toFixed(0)} MB log`, `${pageRun.ms.toFixed(1)} ms, peak RSS ${pageRun.maxRssMb.toFixed(0)} MB`,
      `${openPeer.ms.toFixed(0)} ms, peak RSS ${openPeer.maxRssMb.toFixed(0)} MB (c: parse whole log)`, `${(openPeer.ms / pageRun.ms).toFixed(0)}x faster`);
    const replayRun = inChild('replay', bigLog, repeat);
    const floor = inChild('floor', bigLog, repeat);
    add(`full replay of the ${mb.toFixed(0)} MB log`, `${replayRun.ms.toFixed(0)} ms (${(mb / (replayRun.ms / 1000)).toFixed(0)} MB/s)`,
      `${floor.ms.toFixed(0)} ms (e: JSON.parse of every line)`, `${(replayRun.ms / floor.ms).toFixed(2)}x the floor`);
    console.log(`(process baseline RSS ${pageRun.baseRssMb.toFixed(0)} MB)`);

    // Fork of the large session at its middle turn, next to `cp` of the same bytes.
    const forkStore = await SessionStore.open({ root: path.join(root, 'forkstore'), wasmPath, logger: silentLogger, saveDelayMs: 0 });
    const big = await forkStore.create({ workspaceDir: '/bench/fork' });
    const bigDir = forkStore.locate(big.id);
    fs.copyFileSync(bigLog, forkStore.layout.agentLog(bigDir));
    const turns = Math.floor(generated.records / 8);
    const middle = Math.floor(turns / 2);
    const cutBytes = (turnEndOffset(forkStore.layout.agentLog(bigDir), middle) as { offset: number }).offset;
    const forkTimes: number[] = [];
    const cpTimes: number[] = [];
    for (let i = 0; i < repeat; i++) {
      forkTimes.push((await timeAsync(() => forkSession(forkStore, big.id, { turn: middle }))).ms);
      const prefix = path.join(root, `prefix-${i}.jsonl`);
      fs.writeFileSync(prefix, fs.readFileSync(bigLog).subarray(0, cutBytes));
      cpTimes.push(time(() => spawnSync('cp', [prefix, `${prefix}.copy`])).ms);
      fs.rmSync(prefix);
      fs.rmSync(`${prefix}.copy`);
    }
    add(`fork at the middle turn of the ${mb.toFixed(0)} MB session (${(cutBytes / 1024 / 1024).toFixed(0)} MB kept)`, `${median(forkTimes).toFixed(0)} ms`, `${median(cpTimes).toFixed(0)} ms (d: cp of the same bytes)`, `${(median(forkTimes) / median(cpTimes)).toFixed(1)}x cp`);
    await forkStore.close();

    // Appends as a session grows to 1,000 messages (250 turns of 4).
    const appended = await appendThroughWriter(path.join(root, 'append'), wasmPath, 250);
    const last = (xs: number[]) => median(xs.slice(-50));
    add('append a message at ~1,000 messages (no fsync; fsync at turn end)', `${last(appended.messageMs).toFixed(3)} ms`);
    add('append a message with its own fsync', `${median(appended.durableMessageMs).toFixed(2)} ms`);
    add('whole turn (4 messages, usage, fsynced turn_end, state.json, index)', `${last(appended.turnMs).toFixed(1)} ms`);
    const peerMessages = Array.from({ length: 250 }, (_, t) => turnRecords(t + 1, t + 1, 2_000).filter((r) => r.t === 'message').map((r) => (r as { message: object }).message)).flat();
    const peerTimes = rewriteWholeHistory(path.join(root, 'peer-b'), peerMessages);
    add('append at 1,000 messages vs a whole-JSON rewrite', `${last(appended.messageMs).toFixed(3)} ms`, `${last(peerTimes).toFixed(2)} ms (b: rewrite history + global list)`, `${(last(peerTimes) / last(appended.messageMs)).toFixed(0)}x faster`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const table = ['| measure | Braid | peer pattern | ratio |', '| --- | --- | --- | --- |', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  const text = `# Benchmark results\n\n${quick ? 'Quick run' : 'Full run'} on ${os.cpus().length} x ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Medians of ${repeat} runs (50 for index queries).\n\n${table}\n`;
  console.log(`\n${text}`);
  fs.writeFileSync(path.join(repoRoot, 'bench', 'RESULTS.md'), text);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
