import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { planGc, runGc } from '../../../src/core/store/gc';
import { ChangeLedger, pendingDeltas, undoDeltas } from '../../../src/core/store/changes';
import { previewRewind, rewindSession } from '../../../src/core/store/rewind';
import { storageReport } from '../../../src/core/store/storage';
import { parseRecordLine, type GcRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { bytesUnder, DAY_MS, hasBlob, storageFixture, type StorageFixture } from '../../support/storageFixture';

let f: StorageFixture;
before(async () => (f = await storageFixture()));
after(() => f.cleanup());

const blobBytes = (dir: string) => bytesUnder(path.join(dir, 'blobs'));

test('the storage report counts each session by kind, largest first, and the trash by workspace', () => {
  const report = storageReport(f.store.layout, f.store.index);
  const a = report.sessions.find((s) => s.id === f.changed.id)!;
  assert.equal(a.blobs, blobBytes(f.changed.dir));
  assert.equal(a.blobFiles, 4);
  assert.equal(a.logs, bytesUnder(path.join(f.changed.dir, 'agents')));
  assert.equal(a.bytes, bytesUnder(f.changed.dir));
  assert.ok(a.other > 0, 'state.json is counted as other');
  assert.deepEqual(
    report.sessions.map((s) => s.bytes),
    report.sessions.map((s) => s.bytes).sort((x, y) => y - x),
  );
  assert.deepEqual(report.sessions.map((s) => s.id).sort(), [f.changed.id, f.other.id].sort(), 'the trashed session is trash, not a session');
  const trash = bytesUnder(f.store.layout.trashDir);
  assert.ok(trash > 0);
  assert.equal(report.total.trash, trash);
  const [workspace] = report.workspaces;
  assert.equal(workspace!.workspaceDir, f.workspace);
  assert.equal(workspace!.sessions, 2);
  assert.equal(workspace!.trash, trash);
  assert.equal(report.total.bytes, bytesUnder(f.root), 'the total is every byte of the data folder');
  assert.equal(report.total.bytes, report.total.logs + report.total.blobs + report.total.trash + report.total.other);
});

test('a blob hard-linked into a fork counts in both sessions and once in the total', async () => {
  const root = path.join(f.root, 'sessions');
  const before = storageReport(f.store.layout).total.bytes;
  const linked = path.join(f.other.dir, 'blobs', f.changed.orphan.slice(0, 2), f.changed.orphan);
  fs.mkdirSync(path.dirname(linked), { recursive: true });
  fs.linkSync(path.join(f.changed.dir, 'blobs', f.changed.orphan.slice(0, 2), f.changed.orphan), linked);
  try {
    const report = storageReport(f.store.layout);
    assert.equal(report.total.bytes, before, 'a second link adds nothing to the total');
    assert.equal(report.sessions.find((s) => s.id === f.other.id)!.blobs, 1000 + 4096);
  } finally {
    fs.rmSync(linked);
    assert.ok(fs.existsSync(root));
  }
});

test('a blob two sessions link is freed once, and only when gc removes both links', async () => {
  const linked = path.join(f.other.dir, 'blobs', f.changed.orphan.slice(0, 2), f.changed.orphan);
  fs.mkdirSync(path.dirname(linked), { recursive: true });
  fs.linkSync(path.join(f.changed.dir, 'blobs', f.changed.orphan.slice(0, 2), f.changed.orphan), linked);
  try {
    const plan = planGc(f.store);
    assert.equal(plan.bytes, 4096 + 1000, 'the shared 4 KiB once, not once per session');
    assert.equal(
      plan.sessions.reduce((n, s) => n + s.bytes, 0),
      plan.bytes,
    );
    const holder = await f.store.openWriter(f.other.id);
    try {
      const held = planGc(f.store);
      assert.equal(held.sessions.find((s) => s.id === f.changed.id)!.orphans.bytes, 0, 'the held session keeps the file: removing this link frees nothing');
      assert.equal(held.bytes, 0);
    } finally {
      await holder.close();
    }
  } finally {
    fs.rmSync(linked);
  }
});

test('today gc proposes only orphaned blobs: checkpoints of recent sessions, prompt images and fresh trash stay', () => {
  const plan = planGc(f.store);
  const a = plan.sessions.find((s) => s.id === f.changed.id)!;
  assert.deepEqual(a.orphans.hashes, [f.changed.orphan]);
  assert.equal(a.orphans.bytes, 4096);
  assert.deepEqual(a.checkpoints.hashes, []);
  assert.deepEqual(plan.sessions.find((s) => s.id === f.other.id)!.orphans.hashes, [f.other.orphan]);
  assert.deepEqual(plan.trash, []);
  assert.equal(plan.bytes, 4096 + 1000);
});

test('40 days on, gc proposes the checkpoints of untouched sessions and the trash past its 7 days, never the prompt image', () => {
  const plan = planGc(f.store, { now: Date.now() + 40 * DAY_MS });
  const a = plan.sessions.find((s) => s.id === f.changed.id)!;
  assert.deepEqual(a.checkpoints.hashes.sort(), [f.changed.before, f.changed.after].sort());
  assert.equal(a.untouchedDays, 40);
  assert.ok(!a.checkpoints.hashes.includes(f.changed.image) && !a.orphans.hashes.includes(f.changed.image));
  assert.deepEqual(
    plan.trash.map((t) => [t.id, t.kind]),
    [[f.trashed.id, 'session']],
  );
  assert.equal(plan.trash[0]!.bytes, bytesUnder(f.store.layout.trashedSessionDir(plan.trash[0]!.workspaceKey!, f.trashed.id)));
  assert.equal(planGc(f.store, { now: Date.now() + 40 * DAY_MS, olderThanDays: 60 }).sessions.find((s) => s.id === f.changed.id)!.checkpoints.hashes.length, 0);
});

test('gc removes what it proposed, logs a gc record in the session, skips a session another writer holds', async () => {
  const updatedBefore = f.store.get(f.changed.id).updatedAt;
  const plan = planGc(f.store, { now: Date.now() + 40 * DAY_MS });
  // Taken after the plan was made: the run finds the lease held and leaves the session alone.
  const holder = await f.store.openWriter(f.other.id);
  try {
    assert.match(planGc(f.store).sessions.find((s) => s.id === f.other.id)!.busy ?? '', /being written by process \d+/);
    const result = await runGc(f.store, plan);
    assert.deepEqual(
      result.skipped.map((s) => s.id),
      [f.other.id],
    );
    assert.match(result.skipped[0]!.why, /being written by process/);
    assert.ok(hasBlob(f.other.dir, f.other.orphan), 'the held session keeps its blob');
    assert.deepEqual(result.sessions, [{ id: f.changed.id, checkpoints: 2, orphans: 1, bytes: 4 + 4 + 4096 }]);
    assert.deepEqual(
      result.trash.map((t) => t.id),
      [f.trashed.id],
    );
    assert.equal(fs.existsSync(f.store.layout.trashedSessionDir(plan.trash[0]!.workspaceKey!, f.trashed.id)), false);
  } finally {
    await holder.close();
  }
  for (const h of [f.changed.before, f.changed.after, f.changed.orphan]) assert.equal(hasBlob(f.changed.dir, h), false);
  assert.ok(hasBlob(f.changed.dir, f.changed.image), 'the prompt image stays');
  const records = readWireLog(f.store.layout.agentLog(f.changed.dir)).records.filter((r): r is GcRecord => r.t === 'gc');
  assert.deepEqual(
    records.map(({ reason, blobs, bytes, days }) => ({ reason, blobs, bytes, days })),
    [
      { reason: 'untouched', blobs: 2, bytes: 8, days: 30 },
      { reason: 'orphaned', blobs: 1, bytes: 4096, days: undefined },
    ],
  );
  assert.ok(!('unknown' in records[0]!), 'a known record type');
  assert.equal(f.store.get(f.changed.id).updatedAt, updatedBefore, 'gc is not a change of the session: its place in the lists stays');
  assert.equal(
    planGc(f.store, { now: Date.now() + 40 * DAY_MS }).sessions.find((s) => s.id === f.changed.id),
    undefined,
    'nothing left to remove',
  );
});

test('a rewind after gc says "checkpoint removed" for that file, leaves it alone and still rewinds the conversation', async () => {
  const preview = previewRewind(f.store, f.changed.id, f.changed.prompt);
  assert.deepEqual(preview.files, []);
  assert.equal(preview.refused.length, 1);
  assert.match(preview.refused[0]!, /^a\.txt: checkpoint removed \(braid gc removed/);
  const result = await rewindSession(f.store, f.changed.id, f.changed.prompt, { files: true });
  assert.deepEqual(result.restored, []);
  assert.equal(fs.readFileSync(path.join(f.workspace, 'a.txt'), 'utf8'), 'two\n', 'the file is left as it is');
  assert.equal(f.store.get(f.changed.id).turnCount, 0);
  assert.equal(f.store.history(f.changed.id).messages.length, 0);
});

test('a gc record parses as a known record; one without its counts is a bad line', () => {
  const line = JSON.stringify({ v: 1, t: 'gc', reason: 'orphaned', blobs: 3, bytes: 12, ts: 1 });
  const read = parseRecordLine(line);
  assert.ok('record' in read && !('unknown' in read.record));
  assert.deepEqual(parseRecordLine(JSON.stringify({ v: 1, t: 'gc', reason: 'orphaned', ts: 1 })), { bad: 'missing-fields' });
});

test('an Undo from the Changes list after gc says "checkpoint removed" for that file and leaves it alone', async () => {
  const g = await storageFixture();
  try {
    await runGc(g.store, planGc(g.store, { now: Date.now() + 40 * DAY_MS }));
    const { records, turn } = new ChangeLedger(g.store.layout.agentLog(g.changed.dir)).read();
    const deltas = pendingDeltas(records, 'session', turn);
    assert.deepEqual(
      deltas.map((d) => d.path),
      ['a.txt'],
    );
    const result = await undoDeltas(g.store, g.changed.id, deltas, turn, () => undefined);
    assert.deepEqual(result.undone, []);
    assert.match(result.skipped[0]!.why, /^a\.txt: checkpoint removed \(braid gc removed the copy Braid kept of it\), so it is left as it is$/);
    assert.equal(fs.readFileSync(path.join(g.workspace, 'a.txt'), 'utf8'), 'two\n');
  } finally {
    await g.cleanup();
  }
});
