import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { StoreLayout } from '../../../src/core/format/layout';
import { blobReferences, type GcPlan } from '../../../src/core/store/gc';
import type { FileChangeRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import type { StorageReport } from '../../../src/core/store/storage';
import { braidIn, cliWithScriptedModel, execSessionId } from '../../support/cli';

// What `braid gc` finds in sessions real commands made: a session of one shell command keeps the
// images of the files the command changed, not of every file it might have, and a blob forks
// share is counted once and only when its last link goes.
const { root, workspace, server, env } = cliWithScriptedModel('braid-gc-fresh-');
const store = path.join(root, 'store');
const braid = (...args: string[]) => braidIn(['--data-dir', store, '--workspace', workspace, ...args], { env: env() });

const FILES = 40;

async function commandSession(): Promise<string> {
  for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(workspace, `file-${i}.txt`), `file ${i}\n`.repeat(200));
  server.enqueue({ kind: 'toolCalls', calls: [{ id: 'call_1', name: 'bash', arguments: JSON.stringify({ command: 'echo changed > file-3.txt' }) }] });
  server.enqueue({ kind: 'text', chunks: ['Changed file-3.txt.'] });
  const r = await braid('exec', '--yes', 'change file 3');
  assert.equal(r.code, 0, r.err);
  return execSessionId(r.err, store);
}

const gcPlan = async (...args: string[]) => {
  const r = await braid('gc', '--json', ...args);
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { plan: GcPlan }).plan;
};

test('a session of one command keeps the two images of the file it changed and has no orphaned blob', async () => {
  const id = await commandSession();
  const dir = path.join(store, 'sessions', workspaceKey(workspace), id);
  const changes = readWireLog(path.join(dir, 'agents', 'main', 'wire.jsonl')).records.filter((r): r is FileChangeRecord => r.t === 'file_change');
  assert.deepEqual(
    changes.map((c) => c.path),
    ['file-3.txt'],
  );
  const refs = blobReferences(new StoreLayout(store), dir);
  const files = fs.readdirSync(path.join(dir, 'blobs'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  assert.deepEqual(
    files.map((e) => e.name).sort(),
    [changes[0]!.before!, changes[0]!.after!, ...refs.kept].sort(),
    `the two images of file-3.txt and the turn's system prompt and tools, not one per file of the ${FILES}`,
  );
  const plan = await gcPlan('--dry-run');
  assert.deepEqual(
    plan.sessions.map((s) => [s.id, s.orphans.hashes.length]),
    [],
    'nothing orphaned',
  );

  // Forks link the source's blobs: removing every checkpoint frees each file once, never more than the data folder holds.
  for (let i = 0; i < 3; i++) assert.equal((await braid('fork', id)).code, 0);
  const all = await gcPlan('--older-than', '0');
  assert.equal(all.sessions.length, 4);
  const imageBytes = (hash: string) => fs.statSync(path.join(dir, 'blobs', hash.slice(0, 2), hash)).size;
  const checkpointBytes = imageBytes(changes[0]!.before!) + imageBytes(changes[0]!.after!);
  assert.equal(all.bytes, checkpointBytes, 'the two images four sessions link, counted once');
  assert.equal(
    all.sessions.reduce((n, s) => n + s.bytes, 0),
    all.bytes,
  );
  const keptBytes = [...refs.kept].reduce((n, hash) => n + imageBytes(hash), 0);
  const before = (JSON.parse((await braid('storage', '--json')).out) as StorageReport).total.blobs;
  assert.equal(before, checkpointBytes + keptBytes, 'the storage report counts each linked file once too');
  const r = await braid('gc', '--yes', '--older-than', '0');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /removed [\d.]+ KiB: 8 blobs of 4 sessions/);
  const after = (JSON.parse((await braid('storage', '--json')).out) as StorageReport).total.blobs;
  assert.equal(before - after, checkpointBytes, 'what gc said it frees is what went');
});
