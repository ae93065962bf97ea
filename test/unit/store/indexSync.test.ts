import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { after, test } from 'node:test';
import { loadSqlJs } from '../../../src/core/index/sqlite';
import { StoreLayout } from '../../../src/core/format/layout';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { openStore, tempRoots, wasmPath } from '../../support/store';

// Saves here happen only on flush (a long save delay), so each test decides when a process saves.
const MANUAL = { saveDelayMs: 60_000 };

const { root, cleanup } = tempRoots();
after(cleanup);

/** A session's title as index.sqlite on disk holds it (undefined: no row or no file), read without any SessionIndex. */
async function savedTitle(storeRoot: string, workspaceDir: string, id: string): Promise<string | undefined> {
  const SQL = await loadSqlJs(wasmPath);
  const file = new StoreLayout(storeRoot).indexFile(workspaceKey(workspaceDir));
  if (!fs.existsSync(file)) return undefined;
  const db = new SQL.Database(fs.readFileSync(file));
  try {
    return db.exec('SELECT title FROM sessions WHERE id = ?', [id])[0]?.values[0]?.[0] as string | undefined;
  } finally {
    db.close();
  }
}

test('a change that could not be written (another process kept the lock) stays pending and goes out with the next write', async () => {
  const r = root();
  const store = await openStore(r, MANUAL);
  const s = await store.create({ workspaceDir: '/kept' });
  await store.rename(s.id, 'pending before the lock was taken');
  const lock = new StoreLayout(r).indexLock(workspaceKey('/kept'));
  // A live process's lock (this one's own pid, so it is never taken as stale), held past the wait.
  fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: os.hostname(), at: Date.now() }));
  process.env.BRAID_INDEX_LOCK_WAIT_MS = '200';
  try {
    await store.rename(s.id, 'renamed while the lock was held'); // its summary comes from the pending change: no query
    await store.index.flush(); // waits 200 ms, logs, keeps the change
    assert.equal(store.index.get(s.id)?.title, 'renamed while the lock was held');
  } finally {
    delete process.env.BRAID_INDEX_LOCK_WAIT_MS;
    fs.rmSync(lock);
  }
  assert.notEqual(await savedTitle(r, '/kept', s.id), 'renamed while the lock was held', 'nothing was written while the lock was held');
  await store.index.flush();
  assert.equal(await savedTitle(r, '/kept', s.id), 'renamed while the lock was held');
  await store.close();
});

test('a save carries the state another process wrote since this one changed the session', async () => {
  const r = root();
  const a = await openStore(r, MANUAL);
  const s = await a.create({ workspaceDir: '/shared' });
  await a.index.flush();
  const b = await openStore(r, MANUAL);
  await a.rename(s.id, 'older title'); // pending in a
  await b.rename(s.id, 'newer title');
  await b.index.flush();
  await a.index.flush(); // loads b's file, re-applies its own row, then brings it up to date with state.json
  assert.equal(await savedTitle(r, '/shared', s.id), 'newer title');
  assert.equal(a.index.get(s.id)?.title, 'newer title');
  await a.close();
  await b.close();
});

test('a removal saved after another process restored the session keeps its row', async () => {
  const r = root();
  const a = await openStore(r, MANUAL);
  const s = await a.create({ workspaceDir: '/shared' });
  await a.rename(s.id, 'restored one');
  await a.index.flush();
  const b = await openStore(r, MANUAL);
  await a.delete(s.id); // the removal is pending in a
  await b.undelete(s.id);
  await b.index.flush();
  await a.index.flush();
  assert.equal(await savedTitle(r, '/shared', s.id), 'restored one');
  assert.equal(a.index.get(s.id)?.title, 'restored one');
  await a.close();
  await b.close();
});

test('drift from the folders is counted without changing the index; catching up applies it', async () => {
  const r = root();
  const store = await openStore(r, MANUAL);
  const gone = await store.create({ workspaceDir: '/drift' });
  const stays = await store.create({ workspaceDir: '/drift' });
  fs.rmSync(store.locate(gone.id), { recursive: true });
  const key = workspaceKey('/drift');
  assert.deepEqual(store.index.driftFromFolders(key), { added: 0, updated: 0, removed: 1 });
  assert.ok(store.index.get(gone.id), 'counting changes nothing');
  assert.deepEqual(await store.index.catchUpWithFolders(key), { added: 0, updated: 0, removed: 1 });
  assert.equal(store.index.get(gone.id), undefined);
  assert.ok(store.index.get(stays.id));
  assert.deepEqual(store.index.driftFromFolders(key), { added: 0, updated: 0, removed: 0 });
  await store.close();
});
