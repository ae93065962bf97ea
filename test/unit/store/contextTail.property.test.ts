import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { contextMessages } from '../../../src/core/session/compaction';
import { readContextTail } from '../../../src/core/wire/contextTail';
import { replay } from '../../../src/core/wire/replay';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { tempDir, userMessage } from '../../support/store';

// Random logs of turns, compactions, rewinds, unknown records and a turn left open: reading from
// the end back to the latest compaction must give the same model context, last turn and open turn
// as replaying the whole log.

type Op = { kind: 'turn'; messages: number } | { kind: 'compaction'; keep: number; inTurn: boolean } | { kind: 'rewind'; pick: number } | { kind: 'unknown' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('turn' as const), messages: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('compaction' as const), keep: fc.nat({ max: 6 }), inTurn: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
);

const dir = tempDir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;

function build(ops: Op[], leaveOpen: boolean): string {
  const turns: string[][] = [];
  const lines: string[] = [];
  let counter = 0;
  const rec = (r: object) => lines.push(`${JSON.stringify({ v: 1, ts: ++counter, ...r })}\n`);
  ops.forEach((op, index) => {
    if (op.kind === 'turn' || (op.kind === 'compaction' && op.inTurn)) {
      const turn = turns.length + 1;
      const ids: string[] = [];
      rec({ t: 'turn_begin', turn, promptId: `p${counter}`, model: null });
      const count = op.kind === 'turn' ? op.messages : 2;
      for (let i = 0; i < count; i++) {
        const id = `m${counter + 1}`;
        ids.push(id);
        rec({ t: 'message', turn, id, message: userMessage(`text ${id}`) });
      }
      turns.push(ids);
      if (op.kind === 'compaction') {
        // End-of-run compaction: inside the turn, before its turn_end.
        const all = turns.flat();
        rec({ t: 'compaction', turn, summary: `summary ${counter}`, firstKeptMessageId: all[Math.max(0, all.length - 1 - op.keep)], summarized: 1 });
      }
      if (!(leaveOpen && index === ops.length - 1)) rec({ t: 'turn_end', turn, outcome: 'completed' });
    } else if (op.kind === 'compaction') {
      const all = turns.flat();
      if (all.length === 0) return;
      rec({
        t: 'compaction',
        turn: turns.length,
        summary: `summary ${counter}`,
        firstKeptMessageId: all[Math.max(0, all.length - 1 - op.keep)],
        summarized: 1,
      });
    } else if (op.kind === 'rewind') {
      if (turns.length === 0) return;
      const toTurn = 1 + (op.pick % turns.length);
      rec({ t: 'rewind', toTurn, messageId: turns[toTurn - 1]![0], files: false });
      turns.length = toTurn - 1;
    } else {
      rec({ t: 'future_thing', data: counter });
    }
  });
  const file = path.join(dir, `log-${++files}.jsonl`);
  fs.writeFileSync(file, lines.join(''));
  return file;
}

test('the context read from the end equals the context of a full replay', () => {
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 50 }), fc.boolean(), (ops, leaveOpen) => {
      const file = build(ops, leaveOpen);
      const full = replay(readWireLog(file).records);
      const tail = readContextTail(file);
      assert.deepEqual(contextMessages(tail), contextMessages(full));
      assert.equal(tail.lastTurn, full.nextTurn - 1);
      assert.equal(tail.openTurn, full.openTurn);
      if (full.compactions.length > 0) assert.equal(tail.compactions[0]!.summary, full.compactions.at(-1)!.summary);
    }),
    { numRuns: 400 },
  );
});

test('with a compaction near the end, only the tail of the log is read', () => {
  const ops: Op[] = [
    ...Array.from({ length: 5000 }, () => ({ kind: 'turn' as const, messages: 3 })),
    { kind: 'compaction', keep: 2, inTurn: false },
    { kind: 'turn', messages: 2 },
  ];
  const file = build(ops, false);
  const tail = readContextTail(file);
  assert.equal(tail.messages.length, 5);
  assert.ok(tail.bytesRead <= 256 * 1024 && fs.statSync(file).size > 1_000_000, `${tail.bytesRead} of ${fs.statSync(file).size} bytes`);
});
