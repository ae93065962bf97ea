import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../src/cli/run';
import { SessionIndex } from '../../src/core/index/sessionIndex';
import { listSessionFolders } from '../../src/core/format/layout';
import { silentLogger } from '../../src/core/logger';
import { StoreLayout } from '../../src/core/format/layout';
import { trials } from '../support/faults';
import { repoRoot, tempDir, wasmPath } from '../support/store';
import { readSessionFolder } from '../../src/core/format/summary';

// Four processes share one store: three extension-host-like writers (creating, appending turns,
// renaming, archiving, forking, deleting and undeleting) and one running `braid` commands. The
// quick mode runs 20 s, the long mode a minute. Afterwards the saved index, `braid list --all
// --json` and the folders on disk agree exactly, every session ever created is either on disk or
// in the trash (never both), and each operation's latency distribution is printed.
const SECONDS = trials('BRAID_LOAD_SECONDS', 20, 60);
const root = tempDir('braid-load-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

interface WorkerReport {
  name: string;
  counts: Record<string, number>;
  made: string[];
  latencies: Record<string, number[]>;
}

function runWorker(program: string, name: string): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'out', 'test', 'workers', `${program}.cjs`), root, name, wasmPath, String(SECONDS)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${name} exited ${code}: ${err}`))));
  });
}

async function cliList(args: string[]): Promise<Array<{ id: string; title: string; archived: boolean; turnCount: number }>> {
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', root, 'list', '--all', '--json', ...args], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env: {},
    wasmPath,
  });
  assert.equal(code, 0, err);
  return JSON.parse(out);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

test(`four processes (three writers and the CLI) for ${SECONDS} s lose no session and agree with the index`, async (t) => {
  // Every worker is waited for, failed or not: the store is removed only once none writes to it.
  const settled = await Promise.allSettled([
    runWorker('loadWorker', 'w1'),
    runWorker('loadWorker', 'w2'),
    runWorker('loadWorker', 'w3'),
    runWorker('cliWorker', 'cli'),
  ]);
  const failed = settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
  assert.deepEqual(failed, [], 'every worker ran to its end');
  const reports = settled.map((s) => (s as PromiseFulfilledResult<WorkerReport>).value);
  const writers = reports.slice(0, 3);
  assert.ok(
    writers.every((r) => (r.counts['append turn'] ?? 0) > 0 && (r.counts.rename ?? 0) > 0),
    JSON.stringify(reports.map((r) => r.counts)),
  );
  for (const op of ['fork', 'delete', 'create'])
    assert.ok(
      writers.some((r) => (r.counts[op] ?? 0) > 0),
      `some ${op} happened`,
    );
  assert.ok((reports[3]!.counts['cli rename'] ?? 0) > 0 && (reports[3]!.counts['cli list'] ?? 0) > 0, JSON.stringify(reports[3]!.counts));

  // Latency per operation, all processes together.
  const byOp = new Map<string, number[]>();
  for (const r of reports) for (const [op, list] of Object.entries(r.latencies)) byOp.set(op, [...(byOp.get(op) ?? []), ...list]);
  t.diagnostic(
    `${'operation'.padEnd(14)} ${'count'.padStart(6)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}`,
  );
  for (const [op, list] of [...byOp].sort()) {
    const sorted = [...list].sort((a, b) => a - b);
    t.diagnostic(
      `${op.padEnd(14)} ${String(sorted.length).padStart(6)} ${percentile(sorted, 0.5).toFixed(1).padStart(8)} ${percentile(sorted, 0.9).toFixed(1).padStart(8)} ${percentile(sorted, 0.99).toFixed(1).padStart(8)} ${sorted.at(-1)!.toFixed(1).padStart(8)}`,
    );
  }
  t.diagnostic(`races (busy or gone at that instant, refused clearly): ${reports.map((r) => `${r.name} ${r.counts.raced}`).join(', ')}`);

  const layout = new StoreLayout(root);
  const disk = listSessionFolders(layout)
    .map((f) => {
      const { state } = readSessionFolder(f.dir).summary;
      return { id: f.id, title: state.title, archived: state.archived, turnCount: state.turnCount };
    })
    .sort((a, b) => a.id.localeCompare(b.id));
  const trashed = new Set(fs.readdirSync(layout.trashDir).flatMap((w) => fs.readdirSync(path.join(layout.trashDir, w))));
  const live = new Set(disk.map((d) => d.id));
  const made = reports.flatMap((r) => r.made);
  assert.deepEqual(
    made.filter((id) => !live.has(id) && !trashed.has(id)),
    [],
    'every session created is on disk or in the trash',
  );
  assert.deepEqual(
    [...live].filter((id) => trashed.has(id)),
    [],
    'no session is both live and in the trash',
  );
  t.diagnostic(`sessions: ${made.length} created or forked, ${live.size} live, ${trashed.size} in the trash`);

  // The index as the processes saved it: no rebuild, no reconcile.
  const index = await SessionIndex.open({ layout, wasmPath, logger: silentLogger });
  const indexed = [...index.list({}), ...index.list({ archived: true })]
    .map((r) => ({ id: r.id, title: r.title, archived: r.archived, turnCount: r.turnCount }))
    .sort((a, b) => a.id.localeCompare(b.id));
  await index.close();
  assert.deepEqual(indexed, disk);

  const listed = [...(await cliList([])), ...(await cliList(['--archived']))]
    .map((r) => ({ id: r.id, title: r.title, archived: r.archived, turnCount: r.turnCount }))
    .sort((a, b) => a.id.localeCompare(b.id));
  assert.deepEqual(listed, disk);
});
