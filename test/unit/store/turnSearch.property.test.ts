import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { newSessionId } from '../../../src/core/ids';
import { StoreLayout } from '../../../src/core/format/layout';
import { readFolderSummary, rebuildRowsNow } from '../../../src/core/index/indexFolders';
import { searchSessions } from '../../../src/core/index/indexRows';
import { writeRow } from '../../../src/core/index/indexSync';
import { createSchema } from '../../../src/core/index/schema';
import { loadSqlJs, type Database, type SqlJsStatic } from '../../../src/core/index/sqlite';
import { prepareLog } from '../../../src/core/index/preparedLog';
import { droppedDocuments } from '../../../src/core/index/turnSearch';
import { messageTexts } from '../../../src/core/index/turnText';
import { EffectiveTurns } from '../../../src/core/wire/effectiveTurns';
import { isKnown, type KnownRecord, type MessageRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { logOpArb, RandomLog, writeTestState } from '../../support/randomLog';
import { recordingLogger, tempDir, wasmPath } from '../../support/store';

// Search keeps a document per turn, written as turns end and read from each turn's span of the
// log alone. For random logs (rewinds and both kinds of undo, records of older turns, compactions,
// forks, damaged lines, a turn left open, a rename), written and indexed a few records at a time,
// a search must find exactly the turns a brute-force search of the whole log's effective turns
// finds, and so must an index rebuilt from the folder, and one given documents made from the log's
// bytes (as a pull makes them on a worker thread) with the log out of its reach.

const root = tempDir('braid-turn-search-');
const logger = recordingLogger();
let SQL: SqlJsStatic;
before(async () => (SQL = await loadSqlJs(wasmPath)));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** Words the random logs say (or, as `note` in a reminder and `so` in a compaction, hold but do not say), and CJK runs. */
const QUERIES = [
  'fix',
  'parser',
  'please',
  'bash',
  'says',
  'done',
  'appended',
  'older',
  'ls',
  'txt',
  'x',
  'random',
  'renamed',
  'note',
  'so',
  '修复',
  '错误',
  '登',
  '复登录',
];

const CJK = /\p{Script=Han}/u;

/** The turns of the whole log (after its rewinds and undos) whose text holds `query`, as the index should find them; 0: the title. */
function bruteForce(file: string, title: string, query: string): number[] {
  const effective = new EffectiveTurns<KnownRecord & { turn: number }>();
  for (const r of readWireLog(file).records) {
    if (!isKnown(r)) continue;
    if (r.t === 'rewind') effective.rewind(r.toTurn);
    else if (r.t === 'undo_rewind') effective.undo();
    else if ('turn' in r && r.t !== 'usage') effective.push(r);
  }
  const last = Math.max(0, ...effective.items.map((r) => r.turn));
  const ended = new Set(effective.items.filter((r) => r.t === 'turn_end').map((r) => r.turn));
  const texts = new Map<number, string[]>([[0, [title]]]);
  for (const r of effective.items) {
    if (r.turn === last && !ended.has(r.turn)) continue; // still running: not searched yet
    if (!texts.has(r.turn)) texts.set(r.turn, []);
    if (r.t === 'message') texts.get(r.turn)!.push(...messageTexts(r as MessageRecord));
  }
  return [...texts]
    .filter(([, said]) => said.some((text) => holds(text, query)))
    .map(([turn]) => turn)
    .sort((a, b) => a - b);
}

/** A Latin word is found at the start of a word; a CJK run by each pair of neighbours (or the one character). */
function holds(text: string, query: string): boolean {
  if (!CJK.test(query)) return (text.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).some((w) => w.startsWith(query));
  const chars = [...query];
  const pairs = chars.length === 1 ? chars : chars.slice(1).map((c, i) => chars[i] + c);
  return pairs.every((p) => text.includes(p));
}

function found(db: Database, id: string, query: string): number[] {
  const hit = searchSessions(db, query, {}).find((h) => h.id === id);
  return hit ? hit.turns.map((t) => t.turn) : [];
}

function freshDb(): Database {
  const db = new SQL.Database();
  createSchema(db);
  return db;
}

test('a search finds the turns a brute-force search of the whole log finds, indexed as it was written and rebuilt', () => {
  let rewinds = 0;
  fc.assert(
    fc.property(
      fc.array(logOpArb, { maxLength: 30 }),
      fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
      fc.nat({ max: 30 }),
      (ops, indexAfter, renameAt) => {
        const layout = new StoreLayout(fs.mkdtempSync(path.join(root, 'store-')));
        const id = newSessionId();
        const key = workspaceKey('/random');
        const dir = layout.sessionDir(key, id);
        const file = layout.agentLog(dir);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        const state = (title: string) =>
          writeTestState(layout.stateFile(dir), { id, workspaceKey: key, workspaceDir: '/random', createdAt: 1_700_000_000_000, title });
        state('random');
        const log = new RandomLog(id);
        const db = freshDb();
        let title = 'random';
        ops.forEach((op, i) => {
          log.apply(op);
          rewinds += op.kind === 'rewind' ? 1 : 0;
          fs.writeFileSync(file, log.bytes());
          if (i === renameAt) state((title = 'renamed parser'));
          if (indexAfter[i] || i === ops.length - 1) writeRow(db, id, readFolderSummary(dir, logger)!, layout);
        });
        if (ops.length === 0) writeRow(db, id, readFolderSummary(dir, logger)!, layout);
        const rebuilt = freshDb();
        rebuildRowsNow(rebuilt, layout, key, logger);
        // As a pull indexes a log it took whole: its fold and documents made from its bytes, the log not read back.
        const madeReady = freshDb();
        const written = fs.existsSync(file); // no log before the first op
        const prepared = prepareLog(written ? fs.readFileSync(file) : Buffer.alloc(0));
        const summary = readFolderSummary(dir, logger)!;
        if (written) fs.renameSync(file, `${file}.away`);
        writeRow(madeReady, id, { ...summary, fold: prepared.fold, logBytes: prepared.logBytes }, layout, prepared.documents);
        if (written) fs.renameSync(`${file}.away`, file);
        for (const query of QUERIES) {
          const expected = bruteForce(file, title, query);
          assert.deepEqual(found(db, id, query), expected, `"${query}", indexed as written`);
          assert.deepEqual(found(rebuilt, id, query), expected, `"${query}", rebuilt`);
          assert.deepEqual(found(madeReady, id, query), expected, `"${query}", made ready from the log's bytes`);
        }
        assert.equal(droppedDocuments(rebuilt), 0, 'a rebuild drops no document');
        db.close();
        rebuilt.close();
        madeReady.close();
      },
    ),
    { numRuns: 150 },
  );
  assert.ok(rewinds > 20, `rewinds were tried (${rewinds})`);
});
