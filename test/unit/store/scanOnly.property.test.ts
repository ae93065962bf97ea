import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { previewOf } from '../../../src/core/format/messageText';
import { labelText } from '../../../src/core/format/titles';
import type { WireRecord } from '../../../src/core/wire/records';
import { scanWireLog } from '../../../src/core/wire/wireReader';
import { logArb, RandomLog } from '../../support/randomLog';
import { tempDir } from '../../support/store';

// A scan asked for some record types reads each line's type from its head and parses only the
// lines of those types (and lines whose head says nothing). For random logs (torn, cut and garbage
// lines, invalid UTF-8, records laid out otherwise, a type named again inside a record) it must
// visit exactly the records a full parse visits, filtered by type, at the same offsets.

const dir = tempDir('braid-scan-only-');
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;

const TYPES = ['agent', 'turn_begin', 'message', 'usage', 'tool', 'file_change', 'turn_end', 'forked', 'rewind', 'compaction', 'future_thing'];

/** Lines that name a type inside them, or lay a record out with spaces: only a parse knows what they are. */
const tricky = [
  `${JSON.stringify({ v: 1, t: 'message', turn: 1, id: 'nested', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c', name: 'x', arguments: { t: 'rewind' } }], api: 'a', provider: 'p', model: 'm', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: 'toolUse', timestamp: 1 } })}\n`,
  '{"v": 1, "t": "rewind", "toTurn": 1, "messageId": "m", "files": false, "ts": 5}\n',
  '{"v":1,"t":"turn_end","turn":1.5,"outcome":"completed","ts":6}\n',
  '{"v":1,"t":"Turn_End","turn":1,"outcome":"completed","ts":7}\n',
];

test('a scan for some types visits what a full parse visits of those types, at the same offsets', () => {
  fc.assert(
    fc.property(
      logArb,
      fc.subarray(TYPES, { minLength: 1 }),
      fc.array(fc.nat({ max: tricky.length - 1 }), { maxLength: 3 }),
      fc.nat(),
      fc.nat(),
      (log, only, extra, a, b) => {
        const random = new RandomLog('ses_scan');
        for (const op of log.ops) random.apply(op);
        const body = random.bytes(0);
        const torn = random.bytes(log.tornTail).subarray(body.length);
        const bytes = Buffer.concat([body, ...extra.map((i) => Buffer.from(tricky[i]!)), torn]);
        const file = path.join(dir, `log-${++files}.jsonl`);
        fs.writeFileSync(file, bytes);
        // Any byte range, also one that begins or ends inside a line.
        const [start, end] = [a % (bytes.length + 1), b % (bytes.length + 1)].sort((x, y) => x - y) as [number, number];
        const visits = (options: { only?: string[] }) => {
          const seen: Array<{ record: WireRecord; offset: number; length: number }> = [];
          scanWireLog(file, (record, offset, length) => seen.push({ record, offset, length }), { start, end, ...options });
          return seen;
        };
        assert.deepEqual(
          visits({ only }),
          visits({}).filter((v) => only.includes(v.record.t)),
        );
      },
    ),
    { numRuns: 400 },
  );
});

/** A preview as it was computed before it looked at a long text's beginning only. */
function previewWhole(text: string): string {
  const flat = labelText(text).replace(/\s+/g, ' ').trim();
  return Array.from(flat).slice(0, 200).join('');
}

test('a preview of a long text is the preview of the whole text', () => {
  const piece = fc.oneof(
    fc.string({ maxLength: 50 }),
    fc.constantFrom(' ', '\n\n', '\t', '\u200F', '👍🏽', '\uD83D', '修复', ' '.repeat(3000), 'x'.repeat(4090)),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
      const text = pieces.join('');
      assert.equal(previewOf(text), previewWhole(text));
    }),
    { numRuns: 1000 },
  );
});
