import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { after, test } from 'node:test';
import { IndexFile, IndexLockLostError, schemaDigestOf } from '../../../src/core/index/indexFile';
import { createSchema, FRESH_SCHEMA_DIGEST } from '../../../src/core/index/schema';
import { rebuildRowsNow, settleBuild } from '../../../src/core/index/indexFolders';
import { loadSqlJs, queryAll } from '../../../src/core/index/sqlite';
import { StoreLayout } from '../../../src/core/format/layout';
import { silentLogger } from '../../../src/core/logger';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { spawnWorker } from '../../support/children';
import { openStore, tempRoots, wasmPath } from '../../support/store';

// The index file used in place (src/core/index/indexFile.ts, sqlite.ts, hostFiles.ts): SQLite's
// pages and journal on disk, every use under index.lock, writes fenced to the lock's holding.

const { root, cleanup } = tempRoots();
after(cleanup);

/** An IndexFile of a fresh store's workspace /w, with the schema, ready to use. */
async function indexFile(): Promise<{ file: IndexFile; layout: StoreLayout; key: string }> {
  const r = root();
  const store = await openStore(r, { workspaceKey: workspaceKey('/w') });
  store.index.list({ workspaceKey: workspaceKey('/w') }); // its first use makes the workspace's index
  await store.close();
  const layout = new StoreLayout(r);
  const key = workspaceKey('/w');
  const file = new IndexFile(layout, key, await loadSqlJs(wasmPath), silentLogger);
  assert.equal(file.open().kind, 'ready');
  return { file, layout, key };
}

test('a process whose index.lock was taken over while it worked has its writes refused, and the file stays whole', async () => {
  const { file, layout, key } = await indexFile();
  const before = fs.readFileSync(layout.indexFile(key));
  assert.throws(
    () =>
      file.use((db) => {
        db.run('BEGIN');
        // Another process took the lock over (this one looked stopped): its own lock file now.
        fs.rmSync(layout.indexLock(key));
        fs.writeFileSync(layout.indexLock(key), JSON.stringify({ pid: 1, host: os.hostname(), at: Date.now(), token: 'other' }));
        db.run("INSERT INTO meta(key, value) VALUES ('written after the takeover', 'x')");
        db.run('COMMIT');
      }),
    (err: unknown) => err instanceof IndexLockLostError,
  );
  assert.ok(fs.readFileSync(layout.indexFile(key)).equals(before), 'not a byte of the file changed');
  assert.match(fs.readFileSync(layout.indexLock(key), 'utf8'), /"other"/, "the other holder's lock is left alone");
  fs.rmSync(layout.indexLock(key));
  // Holding the lock again, the same process writes as before.
  file.use((db) => db.run("INSERT INTO meta(key, value) VALUES ('written with the lock', 'y')"));
  assert.deepEqual(
    file.use((db) => queryAll<{ key: string }>(db, "SELECT key FROM meta WHERE key LIKE 'written%'")).map((r) => r.key),
    ['written with the lock'],
  );
  file.close();
});

test('a file another process renamed over index.sqlite is opened at the next use', async () => {
  const { file, layout, key } = await indexFile();
  file.use((db) => db.run("INSERT INTO meta(key, value) VALUES ('old file', '1')"));
  // Another process installs a rebuilt file: built aside, renamed over the path.
  const other = new IndexFile(layout, key, await loadSqlJs(wasmPath), silentLogger);
  const build = other.startBuild();
  build.db.run("INSERT INTO meta(key, value) VALUES ('new file', '1')");
  other.install(build, () => undefined);
  const keys = file.use((db) => queryAll<{ key: string }>(db, "SELECT key FROM meta WHERE key LIKE '% file'")).map((r) => r.key);
  assert.deepEqual(keys, ['new file']);
  file.close();
  other.close();
});

test('a build installed over a file other processes wrote to while it was built holds what they wrote, with no catching up after', async () => {
  const r = root();
  const key = workspaceKey('/w');
  const layout = new StoreLayout(r);
  const writer = await openStore(r, { workspaceKey: key });
  const kept = await writer.create({ workspaceDir: '/w' });
  const deleted = await writer.create({ workspaceDir: '/w' });
  await writer.index.flush();
  // This process builds a new file from the folders as they are now...
  const builder = new IndexFile(layout, key, await loadSqlJs(wasmPath), silentLogger);
  const build = builder.startBuild();
  rebuildRowsNow(build.db, layout, key, silentLogger);
  // ...another process makes a session and deletes one, writing its rows to the old file...
  const made = await writer.create({ workspaceDir: '/w' });
  await writer.delete(deleted.id);
  await writer.index.flush();
  await writer.close();
  // ...and the build replaces the file: were it a process that dies next, nothing would catch up.
  builder.install(build, (db, beat) => settleBuild(db, layout, key, silentLogger, beat));
  builder.close();
  const reader = new IndexFile(layout, key, await loadSqlJs(wasmPath), silentLogger);
  assert.equal(reader.open().kind, 'ready');
  const ids = reader.use((db) => queryAll<{ id: string }>(db, 'SELECT id FROM sessions ORDER BY id')).map((row) => row.id);
  assert.deepEqual(ids, [kept.id, made.id].sort());
  reader.close();
});

test('a process killed inside a transaction leaves a journal the next user rolls back', async () => {
  const { file, layout, key } = await indexFile();
  file.use((db) => db.run("INSERT INTO meta(key, value) VALUES ('committed', '1')"));
  file.close();
  // A child writes pages of a transaction (more than its cache holds) and dies before COMMIT.
  const killed = await spawnWorker('indexTxnWorker', [layout.indexFile(key), wasmPath]).exit;
  assert.equal(killed.signal, 'SIGKILL');
  assert.ok(fs.statSync(`${layout.indexFile(key)}-journal`).size > 0, 'a hot journal is left');
  const rows = file.use((db) => queryAll<{ key: string }>(db, "SELECT key FROM meta WHERE key = 'committed' OR key LIKE 'uncommitted%'")).map((r) => r.key);
  assert.deepEqual(rows, ['committed'], 'the dead transaction is rolled back');
  assert.deepEqual(
    file.use((db) => db.exec('PRAGMA quick_check')[0]?.values),
    [['ok']],
  );
  file.close();
});

test('a fresh index has the schema digest an opened file is checked against first', async () => {
  const SQL = await loadSqlJs(wasmPath);
  const fresh = new SQL.Database();
  createSchema(fresh);
  const digest = schemaDigestOf(fresh);
  fresh.close();
  assert.equal(digest, FRESH_SCHEMA_DIGEST, `the schema changed: FRESH_SCHEMA_DIGEST in src/core/index/schema.ts is now '${digest}'`);
});

test('a file of this schema version whose table definitions differ is found corrupt, kept aside and rebuilt', async () => {
  const { file, layout, key } = await indexFile();
  file.close();
  const SQL = await loadSqlJs(wasmPath);
  const db = new SQL.Database(fs.readFileSync(layout.indexFile(key)));
  db.run('DROP INDEX session_branches_by_branch');
  assert.notEqual(schemaDigestOf(db), FRESH_SCHEMA_DIGEST);
  fs.writeFileSync(layout.indexFile(key), db.export());
  db.close();
  const reopened = new IndexFile(layout, key, SQL, silentLogger);
  assert.equal(reopened.open().kind, 'rebuild', 'the damaged definitions are found');
  assert.ok(fs.existsSync(`${layout.indexFile(key)}.corrupt`), 'the damaged file is kept aside');
  reopened.close();
});
