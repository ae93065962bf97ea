import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { SessionIndex } from '../../../src/core/index/sessionIndex';
import { schemaVersionOf, SCHEMA_VERSION } from '../../../src/core/index/schema';
import { loadSqlJs, readHeaderChangeCounter } from '../../../src/core/index/sqlite';
import { forkSession } from '../../../src/core/store/fork';
import { rewindSession, undoRewind } from '../../../src/core/store/rewind';
import { StoreLayout } from '../../../src/core/format/layout';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { addTurn, openStore, recordingLogger, tempRoots, wasmPath } from '../../support/store';

const { root, cleanup } = tempRoots();
after(cleanup);

/** A store with a few sessions over two workspaces, one archived; returns what `list` should show. */
async function populate(store: SessionStore): Promise<string[]> {
  const ids: string[] = [];
  for (const [dir, prompt] of [
    ['/a', 'alpha prompt about sql'],
    ['/a', 'beta prompt about webviews'],
    ['/b', 'gamma prompt about forks'],
  ] as const) {
    const s = await store.create({ workspaceDir: dir });
    const w = await store.openWriter(s.id);
    await addTurn(w, prompt, 'answer');
    await w.close();
    ids.push(s.id);
  }
  await store.archive(ids[1]!);
  await store.index.flush();
  return ids;
}

/** The index.sqlite of the workspace of `dir` in the store at `r`. */
function indexOf(r: string, dir: string): string {
  return new StoreLayout(r).indexFile(workspaceKey(dir));
}

function snapshot(store: SessionStore): string {
  const all = [...store.index.list({}), ...store.index.list({ archived: true })].map((r) => ({ ...r, stateMtime: 0 }));
  return JSON.stringify(all.sort((x, y) => x.id.localeCompare(y.id)));
}

test('a deleted, zero-byte or corrupt index.sqlite is rebuilt and lists exactly what was there', async () => {
  const r = root();
  let store = await openStore(r);
  await populate(store);
  const before = snapshot(store);
  await store.close();
  const indexFile = indexOf(r, '/a');
  const damages: Array<[string, () => void]> = [
    ['deleted', () => fs.rmSync(indexFile)],
    ['zero bytes', () => fs.writeFileSync(indexFile, '')],
    [
      'random bytes',
      () => {
        const data = fs.readFileSync(indexFile);
        for (let i = 0; i < 400; i++) data[100 + Math.floor(Math.random() * (data.length - 100))] = Math.floor(Math.random() * 256);
        fs.writeFileSync(indexFile, data);
      },
    ],
    ['garbage', () => fs.writeFileSync(indexFile, 'this is not a database')],
  ];
  for (const [name, damage] of damages) {
    damage();
    const logger = recordingLogger();
    store = await openStore(r, { logger, workspaceKey: workspaceKey('/a') });
    assert.equal(store.index.status, 'ready', name);
    // Random bytes may leave SQLite readable but wrong; a doctor-style reconcile repairs that too.
    await store.index.catchUpWithFolders();
    assert.equal(snapshot(store), before, name);
    await store.close();
  }
});

test('a row whose list-deciding values are damaged (the page still valid) is found by the whole-index check, which rebuilds the index', async () => {
  const r = root();
  let store = await openStore(r);
  const ids = await populate(store);
  const before = snapshot(store);
  await store.close();
  const indexFile = indexOf(r, '/a');
  const SQL = await loadSqlJs(wasmPath);
  for (const [column, value] of [
    ['visibility', 'visÝ&,'],
    ['archived', 7],
    ['kind', 'c0nversation'],
  ] as const) {
    const db = new SQL.Database(fs.readFileSync(indexFile));
    db.run(`UPDATE sessions SET ${column} = ? WHERE id = ?`, [value, ids[0]!]);
    fs.writeFileSync(indexFile, db.export());
    db.close();
    const logger = recordingLogger();
    store = await openStore(r, { logger, workspaceKey: workspaceKey('/a') });
    assert.equal(store.index.verify(), true, `${column}: the whole-index check finds it`);
    assert.ok(
      logger.warnings.some((w) => /index\.sqlite is corrupt \(1 row holds values Braid never writes\); rebuilding/.test(w)),
      `${column}: ${logger.warnings.join(' | ')}`,
    );
    assert.equal(snapshot(store), before, column);
    await store.close();
  }
});

test('an index from a newer schema is left untouched, and the store serves from disk (degraded)', async () => {
  const r = root();
  let store = await openStore(r);
  await populate(store);
  const before = snapshot(store);
  await store.close();
  const SQL = await loadSqlJs(wasmPath);
  const indexFile = indexOf(r, '/a');
  const db = new SQL.Database(fs.readFileSync(indexFile));
  db.run("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  fs.writeFileSync(indexFile, db.export());
  db.close();
  const bytes = fs.readFileSync(indexFile);
  const logger = recordingLogger();
  store = await openStore(r, { logger, workspaceKey: workspaceKey('/a') });
  assert.equal(store.index.status, 'degraded');
  assert.ok(logger.warnings.some((w) => /schema 99, newer/.test(w)));
  assert.equal(snapshot(store), before);
  await store.rename(store.index.list({ workspaceKey: workspaceKey('/a') })[0]!.id, 'renamed while degraded');
  await store.close();
  assert.ok(fs.readFileSync(indexFile).equals(bytes), 'the newer index file is not overwritten');
});

test('an index of the previous schema (usage rows without origins, counting copies) is rebuilt from the folders at open', async () => {
  const r = root();
  let store = await openStore(r);
  const s = await store.create({ workspaceDir: '/old' });
  const w = await store.openWriter(s.id);
  await addTurn(w, 'one', 'answer');
  await addTurn(w, 'two', 'answer');
  await w.close();
  const second = store.history(s.id).messages.filter((m) => m.message.role === 'user')[1]!;
  await rewindSession(store, s.id, second.id, { files: false });
  await undoRewind(store, s.id); // appends turn 2's usage record again
  await forkSession(store, s.id); // copies both
  await store.close();
  // The file as the previous Braid wrote it: schema 1, every usage record summed (5 calls for 2).
  const indexFile = indexOf(r, '/old');
  const SQL = await loadSqlJs(wasmPath);
  const db = new SQL.Database(fs.readFileSync(indexFile));
  db.run("UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  db.run('DROP TABLE usage');
  db.run(
    'CREATE TABLE usage (session_id TEXT NOT NULL, day TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, calls INTEGER NOT NULL, input INTEGER NOT NULL, output INTEGER NOT NULL, cache_read INTEGER NOT NULL, cache_write INTEGER NOT NULL, reasoning INTEGER NOT NULL, cost REAL NOT NULL, PRIMARY KEY (session_id, day, provider, model))',
  );
  fs.writeFileSync(indexFile, db.export());
  db.close();
  const logger = recordingLogger();
  store = await openStore(r, { logger, workspaceKey: workspaceKey('/old') });
  assert.ok(
    logger.infos.some((m) => /index\.sqlite has schema 1; rebuilding it from the session folders/.test(m)),
    logger.infos.join(' | '),
  );
  assert.equal(store.index.status, 'ready');
  assert.equal(store.index.usageReport().total.calls, 2);
  assert.equal(store.index.list({}).length, 2);
  await store.close();
  const saved = new SQL.Database(fs.readFileSync(indexFile));
  assert.equal(schemaVersionOf(saved), SCHEMA_VERSION, 'the rebuilt index was saved in the current schema');
  saved.close();
});

test('search, counts, workspaces and usage totals come from the index', async () => {
  const store = await openStore(root());
  const [a1, , b1] = await populate(store);
  assert.deepEqual(
    store.index.search('sql', { workspaceKey: workspaceKey('/a') }).map((r) => r.id),
    [a1],
  );
  assert.deepEqual(
    store.index.search('GAMMA forks', {}).map((r) => r.id),
    [b1],
  );
  assert.deepEqual(
    store.index.search('gam', {}).map((r) => r.id),
    [b1],
    'prefix match',
  );
  assert.equal(store.index.search('webviews', {}).length, 0, 'archived sessions are searched only on request');
  assert.equal(store.index.search('webviews', { archived: true }).length, 1);
  assert.equal(store.index.search('"); DROP TABLE sessions; --', {}).length, 0);
  assert.equal(store.index.count({ workspaceKey: workspaceKey('/a') }), 1);
  assert.deepEqual(
    store.index
      .workspaces()
      .map((w) => w.workspaceDir)
      .sort(),
    ['/a', '/b'],
  );
  const byModel = store.index.usageReport().byModel;
  assert.equal(byModel.length, 1);
  assert.equal(byModel[0]?.key, 'test/test-model');
  assert.equal(byModel[0]?.calls, 3);
  assert.equal(byModel[0]?.input, 30);
  assert.equal(store.index.usageReport(workspaceKey('/b')).bySession.length, 1);
  await store.close();
});

test('a list or a search across workspaces is the newest-first union of each workspace, paged as one list', async () => {
  const store = await openStore(root());
  const made: Array<{ id: string; updatedAt: number }> = [];
  for (let i = 0; i < 12; i++) {
    const s = await store.create({ workspaceDir: `/w${i % 3}` });
    const w = await store.openWriter(s.id);
    await addTurn(w, `shared word and prompt ${i}`, 'answer');
    await w.close();
    made.push({ id: s.id, updatedAt: store.get(s.id).updatedAt });
  }
  const newest = made.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1)).map((m) => m.id);
  assert.deepEqual(
    store.index.list({}).map((r) => r.id),
    newest,
  );
  assert.deepEqual(
    store.index.list({ limit: 4, offset: 3 }).map((r) => r.id),
    newest.slice(3, 7),
    'a page taken from every workspace',
  );
  assert.deepEqual(
    store.index.search('shared word', { limit: 5 }).map((r) => r.id),
    newest.slice(0, 5),
  );
  const page = store.index.list({ limit: 2 });
  assert.deepEqual(
    page.map((r) => r.title),
    newest.slice(0, 2).map((id) => store.get(id).title),
    'whole rows, not only their keys',
  );
  await store.close();
});

test('two processes writing one index in place lose no row', async () => {
  const r = root();
  const one = await openStore(r, { saveDelayMs: 5 });
  const two = await openStore(r, { saveDelayMs: 5 });
  const created: string[] = [];
  for (let i = 0; i < 20; i++) {
    created.push((await one.create({ workspaceDir: '/shared' })).id);
    created.push((await two.create({ workspaceDir: '/shared' })).id);
  }
  await Promise.all([one.index.flush(), two.index.flush()]);
  await one.close();
  await two.close();
  const fresh = await openStore(r);
  assert.deepEqual(
    fresh.index
      .list({ workspaceKey: workspaceKey('/shared') })
      .map((x) => x.id)
      .sort(),
    created.sort(),
  );
  assert.ok(readHeaderChangeCounter(indexOf(r, '/shared')) >= 40, 'each write a commit of its own or with others');
  await fresh.close();
});

test("a watching process sees another process's changes within 2 s, and hears of a new workspace", async () => {
  const r = root();
  const writer = await openStore(r);
  const first = await writer.create({ workspaceDir: '/live' });
  await writer.index.flush();
  const watcher = await openStore(r, { watch: true, workspaceKey: workspaceKey('/live') });
  try {
    let changed = 0;
    watcher.index.onDidChange(() => changed++);
    assert.ok(watcher.index.get(first.id));
    const started = Date.now();
    const s = await writer.create({ workspaceDir: '/live' });
    await writer.index.flush();
    while (changed === 0 && Date.now() - started < 2000) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(changed > 0, 'the reload was announced');
    assert.equal(watcher.index.list({ workspaceKey: workspaceKey('/live') }).length, 2, `seen after ${Date.now() - started} ms`);
    assert.ok(watcher.index.get(s.id));
    changed = 0;
    const elsewhere = await writer.create({ workspaceDir: '/new-place' });
    while (changed === 0 && Date.now() - started < 4000) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(changed > 0, 'a new workspace folder was announced');
    await writer.index.flush();
    assert.ok(watcher.index.list({}).some((row) => row.id === elsewhere.id));
  } finally {
    await writer.close();
    await watcher.close();
  }
});

test('rebuild reports progress and an index lock left by a dead process does not block saves', async () => {
  const r = root();
  const store = await openStore(r);
  await populate(store);
  const progress: number[] = [];
  await store.index.rebuildFromFolders((done) => progress.push(done));
  assert.equal(progress.at(-1), 3);
  fs.mkdirSync(new StoreLayout(r).workspaceDir(workspaceKey('/after-lock')), { recursive: true });
  fs.writeFileSync(
    new StoreLayout(r).indexLock(workspaceKey('/after-lock')),
    JSON.stringify({ pid: 999_999, host: (await import('node:os')).hostname(), at: 0 }),
  );
  await store.create({ workspaceDir: '/after-lock' });
  await store.index.flush();
  const other = await SessionIndex.open({ layout: new StoreLayout(r), wasmPath, logger: recordingLogger() });
  assert.equal(other.list({ workspaceKey: workspaceKey('/after-lock') }).length, 1);
  await other.close();
  await store.close();
});

test("a store opened for one workspace reads no other workspace's index until a question about every workspace needs it", async () => {
  const r = root();
  const first = await openStore(r);
  const [a, , c] = await populate(first);
  await first.close();
  // Another workspace's index is damaged: opening for /a, listing, searching and a turn in /a never notice.
  const damagedFile = indexOf(r, '/b');
  fs.writeFileSync(damagedFile, Buffer.alloc(4096, 7));
  const logger = recordingLogger();
  const store = await openStore(r, { logger, workspaceKey: workspaceKey('/a') });
  try {
    assert.deepEqual(
      store.index.list({ workspaceKey: workspaceKey('/a') }).map((row) => row.id),
      [a],
    );
    assert.equal(store.index.search('alpha', { workspaceKey: workspaceKey('/a') }).length, 1);
    const w = await store.openWriter(a!);
    await addTurn(w, 'another alpha prompt', 'answer');
    await w.close();
    await store.index.flush();
    assert.deepEqual(logger.warnings, []);
    assert.deepEqual(fs.readFileSync(damagedFile), Buffer.alloc(4096, 7), 'the other index is not read or written');
    // Every workspace at once: /b's index is found damaged then, rebuilt, and its session listed.
    assert.ok(store.index.list({}).some((row) => row.id === c));
    assert.match(logger.warnings.join('\n'), /index\.sqlite is corrupt.*rebuilding it from the session folders/);
  } finally {
    await store.close();
  }
});

test('a save asked for while a rebuild holds its transaction waits for it, instead of failing as SQLite busy', async () => {
  const r = root();
  const logger = recordingLogger();
  const store = await openStore(r, { logger, saveDelayMs: 0 });
  const ids: string[] = [];
  try {
    for (let i = 0; i < 205; i++) ids.push((await store.create({ workspaceDir: '/busy' })).id); // past one yield of the rebuild (every 200)
    await store.index.flush();
    let renamed = false;
    await store.index.rebuildFromFolders(() => {
      if (renamed) return;
      renamed = true;
      void store.rename(ids[0]!, 'renamed during the rebuild'); // its save is scheduled while the transaction is open
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await store.index.flush();
    assert.ok(renamed);
    assert.equal(logger.warnings.filter((w) => /busy|locked/i.test(w)).length, 0, logger.warnings.join('\n'));
  } finally {
    await store.close();
  }
  const again = await openStore(r, { workspaceKey: workspaceKey('/busy') });
  assert.equal(again.index.count({ workspaceKey: workspaceKey('/busy') }), 205);
  assert.equal(again.index.get(ids[0]!)?.title, 'renamed during the rebuild');
  await again.close();
});
