import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../src/cli/run';
import { SessionIndex, listSessionFolders } from '../../src/core/index/sessionIndex';
import { silentLogger } from '../../src/core/logger';
import { StoreLayout } from '../../src/core/store/layout';
import { readState } from '../../src/core/store/sessionState';
import { trials } from '../support/faults';
import { repoRoot, tempDir, wasmPath } from '../support/store';

// Three processes share one store for 20 s: creating, appending, renaming, archiving, restoring.
// Afterwards the saved index, `braid list --all --json` and the folders on disk agree exactly.
const SECONDS = trials('BRAID_CONCURRENCY_SECONDS', 20, 60);
const worker = path.join(repoRoot, 'out', 'test', 'workers', 'concurrencyWorker.cjs');
const root = tempDir('braid-concurrency-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

function runWorker(name: string): Promise<{ created: number; turns: number; renamed: number; archived: number; own: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, root, name, wasmPath, String(SECONDS)], { stdio: ['ignore', 'pipe', 'pipe'] });
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
  const code = await runCli(['--data-dir', root, 'list', '--all', '--json', ...args], { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env: {}, wasmPath });
  assert.equal(code, 0, err);
  return JSON.parse(out);
}

test(`three processes for ${SECONDS} s lose no session and no index row`, async () => {
  const results = await Promise.all(['w1', 'w2', 'w3'].map(runWorker));
  const created = results.flatMap((r) => r.own).sort();
  assert.ok(created.length >= 9, `sessions created: ${created.length}`);
  assert.ok(results.every((r) => r.turns > 0 && r.renamed > 0), JSON.stringify(results));

  const layout = new StoreLayout(root);
  const disk = listSessionFolders(layout).map((f) => {
    const state = readState(layout.stateFile(f.dir));
    return { id: f.id, title: state.title, archived: state.archived, turnCount: state.turnCount };
  }).sort((a, b) => a.id.localeCompare(b.id));
  assert.deepEqual(disk.map((d) => d.id), created, 'every created session is on disk');

  // The index as the workers saved it: no rebuild, no reconcile.
  const index = await SessionIndex.open({ layout, wasmPath, logger: silentLogger });
  const indexed = [...index.list({}), ...index.list({ archived: true })]
    .map((r) => ({ id: r.id, title: r.title, archived: r.archived, turnCount: r.turnCount })).sort((a, b) => a.id.localeCompare(b.id));
  await index.close();
  assert.deepEqual(indexed, disk);

  const listed = [...await cliList([]), ...await cliList(['--archived'])]
    .map((r) => ({ id: r.id, title: r.title, archived: r.archived, turnCount: r.turnCount })).sort((a, b) => a.id.localeCompare(b.id));
  assert.deepEqual(listed, disk);
});
