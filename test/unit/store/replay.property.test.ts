import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { readNewestPage, type PageCursor } from '../../../src/core/wire/newestPage';
import { replay } from '../../../src/core/wire/replay';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { tempDir, userMessage } from '../../support/store';

// Random logs of turns, rewinds, unknown records, blank lines and a torn tail: the forward replay
// and the backward page reader must both agree with a plain model of the conversation.

type Op = { kind: 'turn'; messages: number } | { kind: 'rewind'; pick: number } | { kind: 'unknown' } | { kind: 'blank' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('turn' as const), messages: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'blank' as const }) },
);

const dir = tempDir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;

function build(ops: Op[], tornBytes: number): { file: string; expected: string[]; nextTurn: number } {
  const turns: string[][] = []; // the model: effective turns, each its message ids
  const lines: string[] = [];
  let counter = 0;
  const rec = (r: object) => lines.push(`${JSON.stringify({ v: 1, ts: counter, ...r })}\n`);
  for (const op of ops) {
    if (op.kind === 'turn') {
      const turn = turns.length + 1;
      const ids: string[] = [];
      rec({ t: 'turn_begin', turn, promptId: `p${counter}`, model: null });
      for (let i = 0; i < op.messages; i++) {
        const id = `m${++counter}`;
        ids.push(id);
        rec({ t: 'message', turn, id, message: userMessage(`text ${id} ${'~'.repeat(counter % 50)}`) });
      }
      rec({ t: 'turn_end', turn, outcome: 'completed' });
      turns.push(ids);
    } else if (op.kind === 'rewind') {
      if (turns.length === 0) continue;
      const toTurn = 1 + (op.pick % turns.length);
      rec({ t: 'rewind', toTurn, messageId: turns[toTurn - 1]![0], files: false });
      turns.length = toTurn - 1;
    } else if (op.kind === 'unknown') {
      rec({ t: 'future_thing', data: counter });
    } else {
      lines.push('\n');
    }
  }
  let text = lines.join('');
  if (tornBytes > 0) {
    const torn = JSON.stringify({ v: 1, ts: 0, t: 'message', turn: 1, id: 'torn', message: userMessage('never finished') });
    text += torn.slice(0, Math.min(tornBytes, torn.length - 1));
  }
  const file = path.join(dir, `log-${++files}.jsonl`);
  fs.writeFileSync(file, text);
  return { file, expected: turns.flat(), nextTurn: turns.length + 1 };
}

test('forward replay equals the model for random turns, rewinds, unknown records and torn tails', () => {
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 60 }), fc.nat({ max: 40 }), (ops, torn) => {
      const { file, expected, nextTurn } = build(ops, torn);
      const history = replay(readWireLog(file).records);
      assert.deepEqual(
        history.messages.map((m) => m.id),
        expected,
      );
      assert.equal(history.nextTurn, nextTurn);
      assert.equal(history.openTurn, null);
    }),
    { numRuns: 300 },
  );
});

test('paging backwards from the end yields exactly the effective history, for any page size', () => {
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 60 }), fc.nat({ max: 40 }), fc.integer({ min: 1, max: 9 }), (ops, torn, pageSize) => {
      const { file, expected } = build(ops, torn);
      const pages: string[][] = [];
      let before: PageCursor | undefined;
      for (let guard = 0; guard < 1000; guard++) {
        const page = readNewestPage(file, pageSize, before);
        if (page.messages.length) pages.unshift(page.messages.map((m) => m.id));
        assert.ok(page.messages.length <= pageSize);
        if (!page.before) break;
        before = page.before;
      }
      assert.deepEqual(pages.flat(), expected);
    }),
    { numRuns: 300 },
  );
});
