import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { storageReport } from '../../../src/core/store/storage';
import { storeShortForms } from '../../../src/core/format/sessionShortIds';
import { braidIn } from '../../support/cli';
import { tempDir } from '../../support/store';
import { hasBlob, storageFixture, type StorageFixture } from '../../support/storageFixture';

let f: StorageFixture;
before(async () => (f = await storageFixture()));
after(() => f.cleanup());

/** The short form the CLI names a session of the fixture by. */
const shown = (id: string) => storeShortForms(f.store.layout)(id);
const braid = (...args: string[]) => braidIn(['--data-dir', f.root, ...args], { cwd: f.workspace });

test('braid storage --json is the report: totals by kind, sessions largest first', async () => {
  const r = await braid('storage', '--json');
  assert.equal(r.code, 0, r.err);
  const json = JSON.parse(r.out) as ReturnType<typeof storageReport>;
  const expected = storageReport(f.store.layout);
  assert.equal(json.root, f.root);
  assert.equal(json.total.blobs, expected.total.blobs);
  assert.equal(json.total.trash, expected.total.trash);
  assert.equal(json.sessions[0]!.id, f.changed.id, 'the session with the blobs is the largest');
  for (const key of ['id', 'workspaceKey', 'title', 'logs', 'blobs', 'trash', 'other', 'bytes', 'blobFiles']) assert.ok(key in json.sessions[0]!, key);
  assert.equal(json.workspaces[0]!.workspaceDir, f.workspace);
});

test('braid storage prints the totals, the workspace and each session with its size', async () => {
  const r = await braid('storage');
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /^Braid's storage: \d+(\.\d)? KiB in .+\n {2}logs [\d.]+ KiB, blobs \(checkpoints, images, prompts\) [\d.]+ KiB, trash [\d.]+ (KiB|bytes)/,
  );
  assert.ok(r.out.includes(`${f.workspace} (2 sessions)`), r.out);
  assert.match(r.out, new RegExp(`By session, largest first\\n.*session\\n\\s+[\\d.]+ KiB\\s+[\\d.]+ (KiB|bytes)\\s+[\\d.]+ KiB\\s+${shown(f.changed.id)}`));
  assert.match(r.out, /braid gc lists what could be removed/);
});

test('braid gc --dry-run lists what it would remove with sizes and removes nothing', async () => {
  const r = await braid('gc', '--dry-run');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^braid gc would remove 5\.0 KiB:\n/);
  assert.match(r.out, new RegExp(`orphaned\\s+4\\.0 KiB\\s+${shown(f.changed.id)}.*\\(1 blob no record names\\)`));
  assert.match(r.out, new RegExp(`orphaned\\s+1000 bytes\\s+${shown(f.other.id)}`));
  assert.match(r.out, /dry run: nothing removed\n$/);
  assert.doesNotMatch(r.out, /checkpoints|trash {8}/, 'recent sessions keep their checkpoints; fresh trash stays');
  assert.ok(hasBlob(f.changed.dir, f.changed.orphan) && hasBlob(f.other.dir, f.other.orphan));
});

test('braid gc without --yes lists, says how to remove, and removes nothing; --older-than 0 lists checkpoints too', async () => {
  const r = await braid('gc', '--older-than', '0');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`checkpoints\\s+8 bytes\\s+${shown(f.changed.id)}.*\\(2 file images; untouched for 0 days\\)`));
  assert.match(r.out, /nothing removed; to remove it: braid gc --yes --older-than 0\n$/);
  assert.ok(hasBlob(f.changed.dir, f.changed.before));
  assert.equal((await braid('gc', '--older-than', 'soon')).code, 2);
  assert.equal((await braid('gc', '--dry-run', '--yes')).code, 2);
});

test('braid gc --json gives the plan (and, only with --yes, what was removed)', async () => {
  for (const args of [
    ['gc', '--json'],
    ['gc', '--dry-run', '--json'],
  ]) {
    const r = await braid(...args);
    assert.equal(r.code, 0, r.err);
    const value = JSON.parse(r.out) as { plan: { bytes: number; sessions: { id: string; orphans: { hashes: string[] } }[] }; removed: unknown };
    assert.equal(value.plan.bytes, 4096 + 1000);
    assert.deepEqual(value.plan.sessions.find((s) => s.id === f.changed.id)?.orphans.hashes, [f.changed.orphan]);
    assert.equal(value.removed, null, 'nothing removed');
  }
  assert.ok(hasBlob(f.changed.dir, f.changed.orphan) && hasBlob(f.other.dir, f.other.orphan));
});

test('braid gc --yes removes what it listed and says so; then nothing is left', async () => {
  const r = await braid('gc', '--yes');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^removing 5\.0 KiB:\n/);
  assert.match(r.out, /removed 5\.0 KiB: 2 blobs of 2 sessions, 0 trash entries\n$/);
  assert.ok(!hasBlob(f.changed.dir, f.changed.orphan) && !hasBlob(f.other.dir, f.other.orphan));
  assert.ok(hasBlob(f.changed.dir, f.changed.before), 'checkpoints of a recent session stay');
  assert.match((await braid('gc')).out, /^nothing to remove: /);
});

test('storage and gc in a folder without a store say so, create nothing, exit 0', async () => {
  const empty = tempDir('braid-nostore-');
  try {
    const r = await braidIn(['--data-dir', empty, 'storage', '--json'], { cwd: empty });
    assert.equal(r.code, 0);
    assert.equal(JSON.parse(r.out).total.bytes, 0);
    const g = await braidIn(['--data-dir', empty, 'gc'], { cwd: empty });
    assert.equal(g.code, 0);
    assert.match(g.out, /^Nothing to remove: there is no Braid data in /);
    assert.deepEqual(fs.readdirSync(empty), []);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
});
