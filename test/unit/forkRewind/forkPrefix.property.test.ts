import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Message } from '@mariozechner/pi-ai';
import { compactFold } from '../../../src/core/format/logFold';
import { readSessionFolder } from '../../../src/core/format/summary';
import { rowDisagreement } from '../../../src/core/index/indexRows';
import { runDoctor } from '../../../src/core/store/doctor';
import { FORK_OPEN_CALL_TEXT, ForkError, forkSession } from '../../../src/core/store/fork';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { readNewestPage } from '../../../src/core/wire/newestPage';
import { closeOpenToolCalls } from '../../../src/core/wire/toolCalls';
import { isKnown, type ForkedRecord, type KnownRecord, type WireRecord } from '../../../src/core/wire/records';
import { replay } from '../../../src/core/wire/replay';
import { scanWireLog } from '../../../src/core/wire/wireReader';
import { logArb, writeRandomSession } from '../../support/randomLog';
import { openStore, tempDir } from '../../support/store';

// A fork copies its source's byte prefix and folds it on the way (tool results from their line's
// head and end), and writes the index row from that fold. For random logs it must make the fork
// that reading the whole log made: the same cut, the same records after it, the same refusals,
// and an index row equal to one read back from the fork's folder.

const root = tempDir('braid-fork-prefix-');
let store: SessionStore;
before(async () => (store = await openStore(root)));
after(async () => {
  await store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Where a fork reading the whole log cuts it (the rules of docs/architecture.md, Fork, rewind, the lease and recovery), or why it refuses. */
function expectedCut(
  file: string,
  turn: number | undefined,
): { bytes: number; leftOutTurn: number | null; inherited: ForkedRecord['from'] | undefined } | 'refused' {
  const records: Array<{ r: WireRecord; offset: number; length: number }> = [];
  const report = scanWireLog(file, (r, offset, length) => records.push({ r, offset, length }));
  const ends = new Map<number, number>();
  const begun = new Map<number, number>();
  for (const { r, offset, length } of records) {
    if (!isKnown(r)) continue;
    if (r.t === 'rewind') {
      for (const t of [...ends.keys()]) if (t >= r.toTurn) ends.delete(t);
      for (const t of [...begun.keys()]) if (t >= r.toTurn) begun.delete(t);
    } else if (r.t === 'turn_begin') begun.set(r.turn, offset);
    else if (r.t === 'turn_end') ends.set(r.turn, offset + length + 1);
  }
  const open = [...begun.keys()].filter((t) => !ends.has(t)).sort((a, b) => a - b)[0];
  let cut: { bytes: number; leftOutTurn: number | null };
  if (turn !== undefined) {
    if (!ends.has(turn)) return 'refused';
    cut = { bytes: ends.get(turn)!, leftOutTurn: null };
  } else if (open === undefined) cut = { bytes: report.tornTail ? report.bytes - report.tornBytes : report.bytes, leftOutTurn: null };
  else cut = { bytes: begun.get(open)!, leftOutTurn: open };
  const inherited = records.find(({ r, offset }) => offset >= cut.bytes && isKnown(r) && r.t === 'forked')?.r as ForkedRecord | undefined;
  return { ...cut, inherited: inherited?.from };
}

test('a fork by byte prefix makes the fork a whole read of the log makes, and its index row is the one read back from its folder', async () => {
  let forked = 0;
  await fc.assert(
    fc.asyncProperty(logArb, fc.nat({ max: 8 }), fc.boolean(), async ({ ops, tornTail }, pick, indexed) => {
      const source = writeRandomSession(store.layout, ops, tornTail);
      const sourceDir = path.dirname(path.dirname(path.dirname(source.file)));
      // Forks of a session the index knows (the summary vouches for the log) and of one it does not.
      if (indexed) store.index.rereadFolder(sourceDir);
      // Whole, at an effective turn, or at one past the last (refused).
      const turn = pick === 0 ? undefined : 1 + ((pick - 1) % (source.log.prompts().length + 1));
      const expected = expectedCut(source.file, turn);
      const sourceBytes = fs.readFileSync(source.file);
      if (expected === 'refused') {
        await assert.rejects(forkSession(store, source.id, turn === undefined ? {} : { turn }), ForkError);
        return;
      }
      const fork = await forkSession(store, source.id, turn === undefined ? {} : { turn });
      forked++;
      assert.equal(fork.leftOutTurn, expected.leftOutTurn);
      const forkDir = store.locate(fork.id);
      const forkBytes = fs.readFileSync(store.layout.agentLog(forkDir));
      assert.ok(forkBytes.subarray(0, expected.bytes).equals(sourceBytes.subarray(0, expected.bytes)), 'the fork begins with the source prefix');
      // What follows the prefix: the inherited `forked` record, results for open tool calls, the fork's own `forked` record.
      const appended: KnownRecord[] = [];
      scanWireLog(store.layout.agentLog(forkDir), (r) => appended.push(r as KnownRecord), { start: expected.bytes });
      const prefixFile = path.join(root, 'prefix.jsonl');
      fs.writeFileSync(prefixFile, sourceBytes.subarray(0, expected.bytes));
      const closing = closeOpenToolCalls(
        readNewestPage(prefixFile, 200).messages.map((m) => m.message as Message),
        FORK_OPEN_CALL_TEXT,
      );
      const kept = replay(scanRecords(prefixFile).filter((r) => r.t === 'turn_begin' || r.t === 'turn_end' || r.t === 'rewind'));
      const from = { sessionId: source.id, turn: turn ?? (expected.leftOutTurn === null ? null : kept.nextTurn - 1) };
      assert.deepEqual(
        appended.map((r) => (r.t === 'forked' ? { forked: r.from } : r.t)),
        [...(expected.inherited ? [{ forked: expected.inherited }] : []), ...closing.map(() => 'message'), { forked: from }],
      );
      // The row the fork wrote, against its folder read back whole.
      const reread = readSessionFolder(forkDir).summary;
      const row = store.index.get(fork.id)!;
      assert.equal(rowDisagreement(row, reread), undefined, `row field ${rowDisagreement(row, reread)}`);
      const kept2 = store.index.summaryOf(fork.id)!;
      assert.deepEqual(kept2.fold, JSON.parse(JSON.stringify(compactFold(reread.fold))));
      assert.equal(kept2.prompts, reread.prompts);
      assert.deepEqual(kept2.usage, reread.usage);
      assert.deepEqual({ ...fork, leftOutTurn: undefined }, { ...reread.state, leftOutTurn: undefined });
    }),
    { numRuns: 150 },
  );
  assert.ok(forked > 50, `most runs fork (${forked})`);
});

function scanRecords(file: string): WireRecord[] {
  const records: WireRecord[] = [];
  scanWireLog(file, (r) => records.push(r));
  return records;
}

test('a tool result damaged between a whole head and end counts in the fork row, as documented; the doctor finds the row out of date and reads it again', async () => {
  const own = await openStore(tempDir('braid-fork-damaged-'));
  try {
    const ops = [{ kind: 'turn' as const, prompt: 'p', tools: ['read_file' as const], resultChars: 50, answer: 'a', outcome: 'completed' as const, model: 0 }];
    const source = writeRandomSession(own.layout, ops, 0);
    const bytes = fs.readFileSync(source.file);
    const at = bytes.indexOf('read_file says') + 5;
    fs.writeFileSync(source.file, Buffer.concat([bytes.subarray(0, at), Buffer.from([0x01]), bytes.subarray(at)])); // a raw control character: not JSON
    own.index.rereadFolder(path.dirname(path.dirname(path.dirname(source.file))));
    const fork = await forkSession(own, source.id, { turn: 1 });
    const forkDir = own.locate(fork.id);
    assert.equal(own.index.get(fork.id)!.messageCount, readSessionFolder(forkDir).summary.messageCount + 1);
    await own.index.flush();
    const report = await runDoctor(own, { fix: false });
    assert.ok(
      report.findings.some((f) => f.where === 'index' && /out of date/.test(f.message)),
      JSON.stringify(report.findings),
    );
    // --fix takes the damaged line out of both logs and reads their rows again.
    await runDoctor(own, { fix: true });
    assert.equal(rowDisagreement(own.index.get(fork.id)!, readSessionFolder(forkDir).summary), undefined);
  } finally {
    await own.close();
    fs.rmSync(path.dirname(own.layout.sessionsDir), { recursive: true, force: true });
  }
});
