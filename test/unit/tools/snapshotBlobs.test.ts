import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { BlobStore } from '../../../src/core/format/blobStore';
import { Checkpoints } from '../../../src/core/tools/checkpoints';
import type { FileChangeRecord } from '../../../src/core/wire/records';
import { tempDir } from '../../support/store';

// The images a shell command's snapshot takes are kept only when a record names them, or when
// something else stored the same bytes meanwhile.
const root = tempDir('braid-snapshot-blobs-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

function setup(name: string) {
  const ws = path.join(root, name, 'ws');
  const session = path.join(root, name, 'session');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(session, { recursive: true });
  for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(ws, `f${i}.txt`), `content ${i}\n`);
  const blobs = new BlobStore(path.join(session, 'blobs'));
  const records: Omit<FileChangeRecord, 'v' | 'ts'>[] = [];
  const checkpoints = new Checkpoints(blobs, async (r) => void records.push(r));
  const stored = () =>
    fs.existsSync(blobs.dir)
      ? fs
          .readdirSync(blobs.dir, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => e.name)
          .sort()
      : [];
  return { ws, blobs, records, checkpoints, stored };
}

test('a command that changes one file of ten leaves its two images and nothing else', async () => {
  const { ws, records, checkpoints, stored } = setup('one-change');
  checkpoints.beginTurn(1);
  const snapshot = await checkpoints.snapshot(ws);
  assert.equal(stored().length, 10, 'every file is kept while the command runs');
  fs.writeFileSync(path.join(ws, 'f3.txt'), 'changed\n');
  fs.rmSync(path.join(ws, 'f5.txt'));
  await checkpoints.recordCommand(snapshot, 'call-1');
  const named = records.flatMap((r) => [r.before, r.after]).filter((h): h is string => typeof h === 'string');
  assert.deepEqual(stored(), [...new Set(named)].sort(), 'the images the records name, and only those');
  assert.equal(named.length, 3, 'f3 before and after, f5 before');
});

test('bytes another put stored while the command ran stay; a later turn never drops an image an earlier record names', async () => {
  const { ws, blobs, records, checkpoints, stored } = setup('claimed');
  checkpoints.beginTurn(1);
  const first = await checkpoints.snapshot(ws);
  const image = blobs.put(Buffer.from('content 7\n')); // a prompt image that happens to equal f7.txt
  fs.writeFileSync(path.join(ws, 'f1.txt'), 'one\n');
  await checkpoints.recordCommand(first, 'call-1');
  const f1Before = records[0]!.before!;
  assert.ok(stored().includes(image) && stored().includes(f1Before));

  // Turn 2: f1.txt is back to what it was, and the command leaves it alone: its image stays, named by turn 1.
  checkpoints.beginTurn(2);
  fs.writeFileSync(path.join(ws, 'f1.txt'), 'content 1\n');
  const second = await checkpoints.snapshot(ws);
  await checkpoints.recordCommand(second, 'call-2');
  assert.ok(stored().includes(f1Before), "turn 1's before-image of f1.txt is kept");
  assert.ok(stored().includes(image), 'the prompt image is kept');
  assert.equal(records.length, 1, 'turn 1 changed f1.txt; turn 2 changed nothing');
});
