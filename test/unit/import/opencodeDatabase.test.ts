import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { importSessions } from '../../../src/core/import/importer';
import { SourceDatabases } from '../../../src/core/import/sourceDatabase';
import { readSnapshot } from '../../../src/core/import/sqliteSnapshot';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import type { MessageRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { sha256Hex } from '../../../src/core/hash';
import { promptText } from '../../../src/core/format/messageText';
import { numberedTurns, runPython, writeOpencodeDatabase, type OpencodeMade, importPlace, type ImportPlace } from '../../support/sourceSessions';
import { wasmPath } from '../../support/store';

// opencode 1.2 and later keeps its sessions in SQLite (opencode.db, WAL mode). The importer reads
// a consistent copy of it, its WAL included, without writing a byte of it; the databases here are
// written by SQLite itself (Python's sqlite3), in the tables opencode 1.18 creates.
let place: ImportPlace;
let root: string;
let workspace: string;
let store: SessionStore;
beforeEach(async () => {
  place = await importPlace('braid-opencode-db-');
  ({ root, workspace, store } = place);
});
afterEach(() => place.cleanup());

const MARCH = Date.UTC(2026, 2, 10, 9, 0);
const parent = (): OpencodeMade => ({ id: 'ses_parent', directory: workspace, title: 'Fix the parser', startMs: MARCH, turns: numberedTurns(3) });
const child = (): OpencodeMade => ({
  id: 'ses_child',
  directory: workspace,
  title: 'Survey (@general subagent)',
  parentId: 'ses_parent',
  startMs: MARCH + 30_000,
  turns: numberedTurns(1),
});
const digestOf = (file: string) => (fs.existsSync(file) ? sha256Hex(fs.readFileSync(file)) : 'absent');
const userTexts = (id: string) =>
  readWireLog(store.layout.agentLog(store.locate(id)))
    .records.filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'user')
    .map((r) => promptText(r.message));

test('a database whose sessions are still in its WAL (opencode running) is imported whole, and neither file is changed', async () => {
  const db = path.join(root, 'share', 'opencode', 'opencode.db');
  writeOpencodeDatabase(db, [parent(), child()], { leaveWal: true });
  assert.ok(fs.statSync(`${db}-wal`).size > 0, 'the sessions are in the WAL');
  const before = [db, `${db}-wal`, `${db}-shm`].map(digestOf);
  const outcomes = await importSessions(store, { from: 'auto', paths: [path.dirname(db)], dryRun: false, wasmPath });
  assert.deepEqual(
    outcomes.map((o) => [o.action, o.sourceId]),
    [
      ['imported', 'ses_parent'],
      ['skipped', 'ses_child'],
    ],
  );
  assert.match(outcomes[1]!.reason!, /a subagent of ses_parent/);
  const state = store.get(outcomes[0]!.sessionId!);
  assert.equal(state.title, 'Fix the parser');
  assert.equal(state.turnCount, 3);
  assert.equal(state.createdAt, MARCH, 'created when opencode created it');
  assert.equal(state.updatedAt, MARCH + 2 * 60_000 + 2000, 'updated at its last message, not at the import');
  assert.deepEqual(userTexts(state.id), ['Prompt 1', 'Prompt 2', 'Prompt 3']);
  assert.equal(state.agents.filter((a) => a.id !== 'main').length, 1, 'the child session is its subagent');
  assert.deepEqual([db, `${db}-wal`, `${db}-shm`].map(digestOf), before, 'the database and its WAL are only read');
  assert.equal(fs.existsSync(`${db}-journal`), false);
});

test('the default folder: the data folder holds the database and the storage the migration left; a session in both comes from the database', async () => {
  const data = path.join(root, 'share');
  writeOpencodeDatabase(path.join(data, 'opencode', 'opencode.db'), [parent()]);
  // The JSON storage of opencode 1.1 with the same session, which the database holds too.
  const storage = path.join(data, 'opencode', 'storage');
  fs.mkdirSync(path.join(storage, 'session', 'prj_1'), { recursive: true });
  fs.mkdirSync(path.join(storage, 'message', 'ses_parent'), { recursive: true });
  fs.writeFileSync(
    path.join(storage, 'session', 'prj_1', 'ses_parent.json'),
    JSON.stringify({ id: 'ses_parent', directory: workspace, title: 'old', time: { created: MARCH } }),
  );
  const first = await importSessions(store, { from: 'opencode', paths: [], dryRun: false, wasmPath, env: { XDG_DATA_HOME: data }, home: root });
  assert.deepEqual(
    first.map((o) => [o.action, o.sourceId, o.file]),
    [['imported', 'ses_parent', path.join(data, 'opencode', 'opencode.db')]],
  );
  const again = await importSessions(store, { from: 'opencode', paths: [], dryRun: false, wasmPath, env: { XDG_DATA_HOME: data }, home: root });
  assert.deepEqual(
    again.map((o) => o.action),
    ['unchanged'],
  );
});

test('a WAL whose last transaction is torn, or whose frame is damaged, reads as the transactions before it', async () => {
  const db = path.join(root, 'opencode.db');
  writeOpencodeDatabase(db, [parent()], { leaveWal: true });
  const whole = fs.statSync(`${db}-wal`).size;
  writeOpencodeDatabase(db, [child()], { leaveWal: true }); // a second transaction, appended to the WAL
  const wal = fs.readFileSync(`${db}-wal`);
  assert.ok(wal.length > whole);
  const sessionsIn = async (bytes: Uint8Array) => {
    const copy = path.join(root, `copy-${Math.random()}.db`);
    fs.writeFileSync(copy, bytes);
    const dbs = new SourceDatabases(wasmPath);
    try {
      const ok = await dbs.query<{ integrity_check: string }>(copy, 'PRAGMA integrity_check');
      assert.equal(ok[0]?.integrity_check, 'ok');
      return (await dbs.query<{ id: string }>(copy, 'SELECT id FROM session ORDER BY id')).map((r) => r.id);
    } finally {
      await dbs.close();
    }
  };
  assert.deepEqual(await sessionsIn(readSnapshot(db, 1 << 30)), ['ses_child', 'ses_parent']);
  // Cut in the middle of the second transaction's frames: only the first is committed.
  fs.writeFileSync(`${db}-wal`, wal.subarray(0, whole + Math.floor((wal.length - whole) / 2)));
  assert.deepEqual(await sessionsIn(readSnapshot(db, 1 << 30)), ['ses_parent']);
  // A damaged byte in the second transaction's first frame: its checksum fails, the chain stops there.
  const damaged = Buffer.from(wal);
  damaged[whole + 100] = damaged[whole + 100]! ^ 0xff;
  fs.writeFileSync(`${db}-wal`, damaged);
  assert.deepEqual(await sessionsIn(readSnapshot(db, 1 << 30)), ['ses_parent']);
});

test('while opencode commits all the time, every copy read is one committed state (each session with all its messages)', async () => {
  const db = path.join(root, 'opencode.db');
  writeOpencodeDatabase(db, [parent()], { leaveWal: true });
  // A writer that commits a session of 4 turns (8 messages, 8 parts) per transaction, and checkpoints now and then, as opencode's SQLite does.
  const writer = spawn('python3', [
    '-c',
    `
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute('PRAGMA journal_mode=WAL')
for i in range(100000):
    db.execute('BEGIN')
    sid = 'ses_w%06d' % i
    db.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?)", (sid, 'prj_1', sid, '/w', 't', '1', i, i))
    for m in range(8):
        db.execute('INSERT INTO message VALUES (?,?,?,?,?)', ('%s_m%d' % (sid, m), sid, m, m, '{"role":"user"}'))
        db.execute('INSERT INTO part VALUES (?,?,?,?,?,?)', ('%s_p%d' % (sid, m), '%s_m%d' % (sid, m), sid, m, m, '{"type":"text","text":"x"}'))
    db.execute('COMMIT')
    if i % 25 == 0: db.execute('PRAGMA wal_checkpoint(PASSIVE)')
    if i % 200 == 199: db.execute('PRAGMA wal_checkpoint(TRUNCATE)')
`,
    db,
  ]);
  try {
    let reads = 0;
    let retried = 0;
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      let bytes: Uint8Array;
      try {
        bytes = readSnapshot(db, 1 << 30);
      } catch (err) {
        retried++; // it changed at every read: said, never a torn copy
        assert.match(String(err), /changed at every read/);
        continue;
      }
      const copy = path.join(root, 'copy.db');
      fs.writeFileSync(copy, bytes);
      const dbs = new SourceDatabases(wasmPath);
      const [counts] = await dbs.query<{ sessions: number; messages: number; parts: number; ok: string }>(
        copy,
        "SELECT (SELECT count(*) FROM session WHERE id LIKE 'ses_w%') AS sessions, (SELECT count(*) FROM message WHERE id LIKE 'ses_w%') AS messages, (SELECT count(*) FROM part WHERE id LIKE 'ses_w%') AS parts, (SELECT integrity_check FROM pragma_integrity_check) AS ok",
      );
      await dbs.close();
      assert.equal(counts!.ok, 'ok');
      assert.equal(counts!.messages, counts!.sessions * 8, 'no session without all its messages');
      assert.equal(counts!.parts, counts!.sessions * 8);
      reads++;
    }
    assert.ok(reads >= 5, `only ${reads} reads in 3 s (${retried} retried)`);
  } finally {
    writer.kill('SIGKILL');
  }
});

test('a file opencode export wrote is imported with its title, turns and times', async () => {
  const file = path.join(root, 'exported.json');
  const ts = MARCH;
  const message = (id: string, role: string, at: number, parts: object[]) => ({
    info: {
      id,
      sessionID: 'ses_exp',
      role,
      time: { created: at },
      ...(role === 'assistant' ? { modelID: 'small', providerID: 'local', tokens: { input: 1, output: 1, cache: { read: 0, write: 0 } } } : {}),
    },
    parts,
  });
  fs.writeFileSync(
    file,
    JSON.stringify({
      info: { id: 'ses_exp', directory: workspace, title: 'Exported one', time: { created: ts, updated: ts + 5000 } },
      messages: [
        message('msg_1', 'user', ts, [{ id: 'prt_1', type: 'text', text: 'What is in src?' }]),
        message('msg_2', 'assistant', ts + 5000, [{ id: 'prt_2', type: 'text', text: 'A parser.' }]),
      ],
    }),
  );
  const [outcome] = await importSessions(store, { from: 'auto', paths: [file], dryRun: false, wasmPath });
  assert.equal(outcome?.action, 'imported', outcome?.reason);
  const state = store.get(outcome.sessionId!);
  assert.equal(state.title, 'Exported one');
  assert.equal(state.turnCount, 1);
  assert.equal(state.createdAt, ts);
  assert.equal(state.updatedAt, ts + 5000);
});

test('sql.js reads a database another SQLite wrote in WAL mode only through the copy: a database it cannot read is refused with its reason', async () => {
  const bad = path.join(root, 'opencode.db');
  fs.writeFileSync(bad, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(84)]));
  const outcomes = await importSessions(store, { from: 'opencode', paths: [bad], dryRun: false, wasmPath });
  assert.equal(outcomes[0]?.action, 'refused');
  assert.match(outcomes[0]!.reason!, /SQLite|database/);
  // Python's SQLite reads the fixture database too: the copy is the same data, not a reading of our own.
  writeOpencodeDatabase(path.join(root, 'ok.db'), [parent()]);
  const titles = runPython(
    `import json, sqlite3, sys; print(json.dumps([r[0] for r in sqlite3.connect(json.load(sys.stdin)).execute('select title from session')]))`,
    path.join(root, 'ok.db'),
  );
  assert.deepEqual(JSON.parse(titles), ['Fix the parser']);
});
