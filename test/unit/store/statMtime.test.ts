import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { statMtime } from '../../../src/core/fs/probe';
import { fingerprints } from '../../../src/core/index/indexRows';
import { listedFolderFiles, listSessionFolders } from '../../../src/core/format/layout';
import { loadSqlJs } from '../../../src/core/index/sqlite';
import { addTurn, openStore, recordingLogger, tempRoots, wasmPath } from '../../support/store';

const { root, cleanup } = tempRoots();
after(cleanup);

test("statMtime is the file time, and undefined (never a number a time was recorded as) when the file cannot be stat'ed", () => {
  const file = path.join(root(), 'state.json');
  fs.writeFileSync(file, '{}');
  fs.utimesSync(file, 0, 0); // a file may really be as old as 0
  assert.equal(statMtime(file), 0);
  fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
  assert.equal(statMtime(file), fs.statSync(file).mtimeMs);
  const missing = statMtime(path.join(root(), 'gone.json'));
  assert.equal(missing, undefined);
  for (const recorded of [0, -1]) assert.notEqual(missing, recorded, `a missing file does not match a recorded ${recorded}`);
});

test('a session whose state.json is gone is read again once by reconcile, then left alone while nothing changes', async () => {
  const logger = recordingLogger();
  const store = await openStore(root(), { logger });
  try {
    const s = await store.create({ workspaceDir: '/ws' });
    const w = await store.openWriter(s.id);
    await addTurn(w, 'a prompt', 'an answer');
    await w.close();
    fs.rmSync(store.layout.stateFile(store.locate(s.id)));
    assert.equal((await store.index.catchUpWithFolders()).updated, 1, 'the row no longer matches the folder');
    assert.equal((await store.index.catchUpWithFolders()).updated, 0, 'the row read without a state.json matches the folder that still has none');
    assert.equal(logger.warnings.filter((m) => m.includes('rebuilt from the log')).length, 1);
  } finally {
    await store.close();
  }
});

test('fingerprints read back every recorded mtime and size exactly, for every id', async () => {
  const SQL = await loadSqlJs(wasmPath);
  const db = new SQL.Database();
  try {
    db.run('CREATE TABLE sessions (id TEXT, workspace_key TEXT, log_bytes INTEGER, state_mtime REAL)'); // the columns read, as the schema types them
    const made = new Map<string, { stateMtime: number; logBytes: number }>();
    const times = [1_796_544_669_771.4058, 1_700_000_000_000.000_2, 0, 0.1, 2_000_000_000_999.999_8, 1e-7];
    for (let i = 0; i < 300; i++) {
      const stateMtime = times[i] ?? 1.7e12 + Math.random() * 1e11 + Math.random();
      made.set(`s-${i}`, { stateMtime, logBytes: i * 7919 });
    }
    for (const [id, f] of made) db.run('INSERT INTO sessions VALUES (?, ?, ?, ?)', [id, id.endsWith('7') ? 'other' : 'ws', f.logBytes, f.stateMtime]);
    assert.deepEqual(fingerprints(db), made);
    assert.deepEqual(fingerprints(db, 'other'), new Map([...made].filter(([id]) => id.endsWith('7'))));
    assert.deepEqual(fingerprints(db, 'none'), new Map());
  } finally {
    db.close();
  }
});

test('the folder check stats the files the layout names, for every folder it lists', async () => {
  const store = await openStore(root());
  try {
    for (const dir of ['/ws', '/other ws']) await store.create({ workspaceDir: dir });
    const listed = listSessionFolders(store.layout);
    assert.equal(listed.length, 2);
    for (const { dir, workspaceKey, id } of listed) {
      assert.equal(dir, store.layout.sessionDir(workspaceKey, id));
      assert.deepEqual(listedFolderFiles(dir), { state: store.layout.stateFile(dir), mainLog: store.layout.agentLog(dir) });
      assert.ok(fs.existsSync(listedFolderFiles(dir).state));
    }
  } finally {
    await store.close();
  }
});
