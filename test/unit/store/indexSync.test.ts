import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { loadSqlJs } from '../../../src/core/index/sqlite';
import { StoreLayout } from '../../../src/core/format/layout';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { openStore, tempRoots, wasmPath } from '../../support/store';

// Saves here happen only on flush (a long save delay), so each test decides when a process saves.
const MANUAL = { saveDelayMs: 60_000 };

const { root, cleanup } = tempRoots();
after(cleanup);

/** A session's title as index.sqlite on disk holds it (undefined: no row), read without any SessionIndex. */
async function savedTitle(storeRoot: string, workspaceDir: string, id: string): Promise<string | undefined> {
  const SQL = await loadSqlJs(wasmPath);
  const db = new SQL.Database(fs.readFileSync(new StoreLayout(storeRoot).indexFile(workspaceKey(workspaceDir))));
  try {
    return db.exec('SELECT title FROM sessions WHERE id = ?', [id])[0]?.values[0]?.[0] as string | undefined;
  } finally {
    db.close();
  }
}

test('a change a failed save could not write stays pending and goes out with the next save', async () => {
  const r = root();
  const store = await openStore(r, MANUAL);
  const s = await store.create({ workspaceDir: '/kept' });
  await store.index.flush();
  const indexFile = new StoreLayout(r).indexFile(workspaceKey('/kept'));
  fs.rmSync(indexFile);
  fs.mkdirSync(indexFile); // the save's rename onto a directory fails
  await store.rename(s.id, 'renamed before the failed save');
  await assert.rejects(store.index.flush());
  fs.rmdirSync(indexFile);
  await store.index.flush();
  assert.equal(await savedTitle(r, '/kept', s.id), 'renamed before the failed save');
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
