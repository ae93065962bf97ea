import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Message } from '@mariozechner/pi-ai';
import { readSessionFolder } from '../../../src/core/format/summary';
import { rowDisagreement } from '../../../src/core/index/indexRows';
import { runDoctor } from '../../../src/core/store/doctor';
import { FORK_OPEN_CALL_TEXT, ForkError, forkSession } from '../../../src/core/store/fork';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { readNewestPage } from '../../../src/core/wire/newestPage';
import { closeOpenToolCalls } from '../../../src/core/wire/toolCalls';
import { isKnown, type ForkedRecord, type KnownRecord, type UndoRewindRecord, type WireRecord } from '../../../src/core/wire/records';
import { replay } from '../../../src/core/wire/replay';
import { scanWireLog } from '../../../src/core/wire/wireReader';
import { logArb, writeRandomSession, type LogOp } from '../../support/randomLog';
import { openStore, tempDir } from '../../support/store';

// A fork copies its source's byte prefix, cut where the source's turn map says, and makes its fold
// from that map without parsing the copied turns. For random logs (rewinds, undos of both kinds,
// records of older turns, damaged lines) it must make the fork a whole read of the log says: the
// same cut, the same records after it, the same refusals, the source's conversation up to the cut,
// and an index row equal to one read back from the fork's folder.

const root = tempDir('braid-fork-prefix-');
let store: SessionStore;
before(async () => (store = await openStore(root)));
after(async () => {
  await store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Where an effective turn's records lie, as a whole read of the log finds them. */
interface Span {
  start: number;
  end: number;
  began: boolean;
  ended: boolean;
}

/**
 * The effective turns' spans of records read in file order: rewinds drop turns, an undo (while
 * nothing went on) brings them back as replay does (EffectiveTurns): the records from before the
 * rewind, with those of turns that came since (a compaction of a kept turn) kept.
 */
function spansOf(records: ReadonlyArray<{ r: WireRecord; offset: number; length: number }>): Map<number, Span> {
  const spans = new Map<number, Span>();
  let beforeRewind: Map<number, Span> | undefined;
  for (const { r, offset, length } of records) {
    if (!isKnown(r)) continue;
    if (r.t === 'rewind') {
      if ([...spans.keys()].some((t) => t >= r.toTurn)) beforeRewind = structuredClone(spans);
      for (const t of [...spans.keys()]) if (t >= r.toTurn) spans.delete(t);
    } else if (r.t === 'undo_rewind') {
      for (const [t, was] of beforeRewind ?? []) spans.set(t, joined(was, spans.get(t)));
      beforeRewind = undefined;
    } else if (r.t === 'forked') beforeRewind = undefined;
    else if ('turn' in r && r.t !== 'usage' && !(r.t === 'memory' && r.turn === 0)) {
      if (r.t === 'turn_begin' || r.t === 'message') beforeRewind = undefined;
      const span = spans.get(r.turn) ?? { start: offset, end: offset, began: false, ended: false };
      span.end = Math.max(span.end, offset + length + 1);
      span.began ||= r.t === 'turn_begin';
      span.ended ||= r.t === 'turn_end';
      spans.set(r.turn, span);
    }
  }
  return spans;
}

/** A turn's span before a rewind joined with the records of that turn that came since. */
function joined(was: Span, since: Span | undefined): Span {
  if (!since) return was;
  return { start: Math.min(was.start, since.start), end: Math.max(was.end, since.end), began: was.began || since.began, ended: was.ended || since.ended };
}

/**
 * Where a fork cuts the log as a whole read finds it (docs/reference.md, Fork), or why it refuses:
 * at turn N after the last record of the turns up to N; whole, everything, or up to a running
 * turn's first record. `undo`: the prefix read whole lacks kept turns (a rewind in it the log undid
 * after the cut), and the fork appends the log's undo. `beyond`: the prefix (with that undo) holds
 * records of later turns (a log not in turn order).
 */
function expectedCut(
  file: string,
  turn: number | undefined,
):
  | {
      bytes: number;
      lastKept: number;
      leftOutTurn: number | null;
      undo: UndoRewindRecord | undefined;
      beyond: boolean;
      inherited: ForkedRecord['from'] | undefined;
    }
  | 'refused' {
  const records: Array<{ r: WireRecord; offset: number; length: number }> = [];
  const report = scanWireLog(file, (r, offset, length) => records.push({ r, offset, length }));
  const spans = spansOf(records);
  const endOf = (last: number) => Math.max(0, ...[...spans].filter(([t]) => t <= last).map(([, s]) => s.end));
  const open = [...spans].filter(([, s]) => s.began && !s.ended).sort(([a], [b]) => a - b)[0];
  let cut: { bytes: number; lastKept: number; leftOutTurn: number | null };
  if (turn !== undefined) {
    const span = spans.get(turn);
    if (!span?.began || !span.ended) return 'refused';
    cut = { bytes: endOf(turn), lastKept: turn, leftOutTurn: null };
  } else if (open === undefined) {
    cut = { bytes: report.tornTail ? report.bytes - report.tornBytes : report.bytes, lastKept: Math.max(0, ...spans.keys()), leftOutTurn: null };
  } else {
    const lastKept = Math.max(0, ...[...spans.keys()].filter((t) => t < open[0]));
    cut = { bytes: Math.max(open[1].start, endOf(lastKept)), lastKept, leftOutTurn: open[0] };
  }
  const copied = records.filter(({ offset }) => offset < cut.bytes);
  const kept = [...spans.keys()].filter((t) => t <= cut.lastKept);
  const undo = kept.some((t) => !spansOf(copied).has(t))
    ? (records.find(({ r, offset }) => offset >= cut.bytes && isKnown(r) && r.t === 'undo_rewind')?.r as UndoRewindRecord | undefined)
    : undefined;
  const prefix = spansOf(undo ? [...copied, { r: undo, offset: cut.bytes, length: 0 }] : copied);
  assert.deepEqual(
    kept.filter((t) => !prefix.has(t)),
    [],
    'the kept turns are in the copy (with the undo)',
  );
  const beyond = [...prefix.keys()].some((t) => t > cut.lastKept);
  const inherited = records.find(({ r, offset }) => offset >= cut.bytes && isKnown(r) && r.t === 'forked')?.r as ForkedRecord | undefined;
  return { ...cut, undo, beyond, inherited: inherited?.from };
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
      // What follows the prefix: the source's undo of a rewind the copy ends with, the inherited `forked` record, results for open tool calls, the fork's own `forked` record.
      const appended: KnownRecord[] = [];
      scanWireLog(store.layout.agentLog(forkDir), (r) => appended.push(r as KnownRecord), { start: expected.bytes });
      // The conversation the fork closes tool calls of: the copy, and the undo it appends first.
      const prefixFile = path.join(root, 'prefix.jsonl');
      const copy = sourceBytes.subarray(0, expected.bytes);
      const undoLine = expected.undo ? `${copy.length > 0 && copy.at(-1) !== 0x0a ? '\n' : ''}${JSON.stringify(expected.undo)}\n` : '';
      fs.writeFileSync(prefixFile, Buffer.concat([copy, Buffer.from(undoLine)]));
      const closing = closeOpenToolCalls(
        readNewestPage(prefixFile, 200).messages.map((m) => m.message as Message),
        FORK_OPEN_CALL_TEXT,
      );
      const from = { sessionId: source.id, turn: turn ?? (expected.leftOutTurn === null ? null : expected.lastKept) };
      assert.deepEqual(
        appended.map((r) =>
          r.t === 'forked' ? { forked: r.from } : r.t === 'rewind' ? { rewind: r.toTurn } : r.t === 'undo_rewind' ? { undo: r.toTurn } : r.t,
        ),
        [
          ...(expected.undo ? [{ undo: expected.undo.toTurn }] : []),
          ...(expected.inherited ? [{ forked: expected.inherited }] : []),
          ...(expected.beyond ? [{ rewind: expected.lastKept + 1 }] : []),
          ...closing.map(() => 'message'),
          { forked: from },
        ],
      );
      // The fork's conversation is the source's up to the cut, read whole.
      const sourceHistory = replay(scanRecords(source.file));
      const forkHistory = replay(scanRecords(store.layout.agentLog(forkDir)));
      assert.deepEqual(
        forkHistory.messages.filter((m) => !closingIds(forkHistory).has(m.id)).map((m) => m.id),
        sourceHistory.messages.filter((m) => m.turn <= expected.lastKept && (turn !== undefined || m.turn !== expected.leftOutTurn)).map((m) => m.id),
      );
      // The row the fork wrote, against its folder read back whole.
      const reread = readSessionFolder(forkDir).summary;
      const row = store.index.get(fork.id)!;
      assert.equal(rowDisagreement(row, reread), undefined, `row field ${rowDisagreement(row, reread)}`);
      const kept2 = store.index.summaryOf(fork.id)!;
      assert.deepEqual(kept2.fold, JSON.parse(JSON.stringify(reread.fold)));
      assert.equal(kept2.prompts, reread.prompts);
      assert.deepEqual(kept2.usage, reread.usage);
      assert.deepEqual({ ...fork, leftOutTurn: undefined }, { ...reread.state, leftOutTurn: undefined });
    }),
    {
      numRuns: 150,
      examples: [
        // Two turns, turn 2 rewound, turn 1 compacted, the rewind undone: turn 1 ends after the
        // compaction. At turn 1 the fork cuts there; at turn 2 too, before the undo, which it appends.
        [{ ops: rewoundCompactedUndone, tornTail: 0 }, 1, false],
        [{ ops: rewoundCompactedUndone, tornTail: 0 }, 2, false],
        [{ ops: rewoundCompactedUndone, tornTail: 0 }, 2, true],
      ],
    },
  );
  assert.ok(forked > 50, `most runs fork (${forked})`);
});

/** The log of a counterexample (seed -491923260): a fork at turn 2 cut between a rewind and its undo. */
const rewoundCompactedUndone: LogOp[] = [
  { kind: 'turn', prompt: '', tools: [], resultChars: 0, answer: '', outcome: 'completed', model: 0 },
  { kind: 'turn', prompt: '', tools: [], resultChars: 0, answer: '', outcome: 'completed', model: 0 },
  { kind: 'rewind', pick: 1 },
  { kind: 'compaction' },
  { kind: 'undo-record' },
];

/** The messages a fork wrote for tool calls its cut left open. */
function closingIds(history: ReturnType<typeof replay>): Set<string> {
  return new Set(
    history.messages
      .filter((m) => m.message.role === 'toolResult' && JSON.stringify(m.message.content).includes(FORK_OPEN_CALL_TEXT.slice(0, 40)))
      .map((m) => m.id),
  );
}

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
