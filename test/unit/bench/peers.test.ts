import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { removeAddedSessions } from '../../../bench/cachedStore';
import { createdAt, GENERATED_BEFORE, generateSessions } from '../../../bench/generate';
import { listByHeadAndStat, listNewestFirst, listReadingEveryLog, searchByScanning } from '../../../bench/peers/listing';
import { StoreLayout } from '../../../src/core/format/layout';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { openStore, tempRoots } from '../../support/store';

// The benchmark's peers (bench/peers/listing.ts) run on generated stores: they must list what the
// patterns they stand for list, or the figures set beside Braid's mean nothing.
const roots = tempRoots();
after(roots.cleanup);

function generated(count: number): { root: string; folder: string; dirs: string[] } {
  const root = roots.root();
  const dirs = generateSessions(root, { count, workspaces: 2, turns: 3 });
  return { root, folder: new StoreLayout(root).workspaceDir(workspaceKey('/bench/workspace-0')), dirs };
}

/** The ids of one workspace's sessions, most recently used first, from their logs' last records. */
function mostRecent(dirs: readonly string[], folder: string, n: number): string[] {
  const lastTs = (dir: string) => {
    const lines = fs
      .readFileSync(path.join(dir, 'agents', 'main', 'wire.jsonl'), 'utf8')
      .trim()
      .split('\n');
    return (JSON.parse(lines.at(-1)!) as { ts: number }).ts;
  };
  return dirs
    .filter((d) => path.dirname(d) === folder)
    .sort((a, b) => lastTs(b) - lastTs(a))
    .slice(0, n)
    .map((d) => path.basename(d));
}

test('generated sessions are last used in another order than their creation, and their log mtimes say when', () => {
  const { folder, dirs } = generated(60);
  const recent = mostRecent(dirs, folder, 30);
  const created = fs
    .readdirSync(folder)
    .filter((n) => n.startsWith('ses_'))
    .sort()
    .reverse()
    .slice(0, 30);
  assert.notDeepEqual(recent, created);
  const dir = dirs[0]!;
  const lines = fs
    .readFileSync(path.join(dir, 'agents', 'main', 'wire.jsonl'), 'utf8')
    .trim()
    .split('\n');
  assert.equal(Math.round(fs.statSync(path.join(dir, 'agents', 'main', 'wire.jsonl')).mtimeMs), (JSON.parse(lines.at(-1)!) as { ts: number }).ts);
});

test('(a1) and (a2) list the most recently used sessions; (a3) lists the newest created, at most 100 read', () => {
  const { folder, dirs } = generated(60);
  const truth = mostRecent(dirs, folder, 10);
  assert.deepEqual(
    listReadingEveryLog([folder], 10).map((s) => s.id),
    truth,
  );
  assert.deepEqual(
    listByHeadAndStat([folder], 10).map((s) => s.id),
    truth,
  );
  const newestCreated = fs
    .readdirSync(folder)
    .filter((n) => n.startsWith('ses_'))
    .sort()
    .reverse();
  assert.deepEqual(
    listNewestFirst([folder], 10).map((s) => s.id),
    newestCreated.slice(0, 10),
  );
  assert.equal(listNewestFirst([folder], 50, 7).length, 7, 'it stops after the files it may read');
  assert.match(listByHeadAndStat([folder], 1)[0]!.title, /please/);
});

test('(s) finds the sessions whose prompts hold every word, as the index search does', async () => {
  const { root, folder } = generated(200);
  const key = workspaceKey('/bench/workspace-0');
  const store = await openStore(root, { workspaceKey: key });
  try {
    for (const query of ['module 42', 'compile widget']) {
      const braid = store.index.search(query, { workspaceKey: key, limit: 500, archived: false });
      const archived = store.index.search(query, { workspaceKey: key, limit: 500, archived: true });
      const scanned = searchByScanning([folder], query, 500);
      assert.deepEqual(new Set(scanned.map((s) => s.id)), new Set([...braid, ...archived].map((r) => r.id)), query);
    }
  } finally {
    await store.close();
  }
});

test('a run removes the sessions it added to a cached store and keeps the generated ones', async () => {
  const { root, dirs } = generated(4);
  const store = await openStore(root);
  const added = await store.create({ workspaceDir: '/bench/workspace-0' });
  await store.close();
  const layout = new StoreLayout(root);
  assert.equal(removeAddedSessions(layout), 1);
  assert.ok(!fs.existsSync(layout.sessionDir(added.workspaceKey, added.id)));
  for (const dir of dirs) assert.ok(fs.existsSync(dir));
  assert.ok(createdAt(100_000) < GENERATED_BEFORE, 'the largest generated store is not taken for sessions a run added');
  assert.ok(GENERATED_BEFORE < Date.now());
});
