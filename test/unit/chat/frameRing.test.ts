import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameRing } from '../../../src/vscode/chat/frameRing';

const rewound = { kind: 'messages-rewound' } as const;

test('cursors grow by one and after() returns exactly the frames a page missed', () => {
  const ring = new FrameRing();
  assert.equal(ring.cursor, 0);
  assert.deepEqual(ring.after(0), []);
  for (let i = 0; i < 5; i++) ring.push(rewound);
  assert.equal(ring.cursor, 5);
  assert.deepEqual(
    ring.after(2)!.map((f) => f.cursor),
    [3, 4, 5],
  );
  assert.deepEqual(ring.after(5), []);
  assert.equal(ring.after(6), undefined, 'a cursor from the future (another session) resyncs');
});

test('frames that left the ring make after() ask for a resync, by count and by bytes', () => {
  const byCount = new FrameRing(3, Number.MAX_SAFE_INTEGER);
  for (let i = 0; i < 10; i++) byCount.push(rewound);
  assert.deepEqual(
    byCount.after(7)!.map((f) => f.cursor),
    [8, 9, 10],
  );
  assert.equal(byCount.after(6), undefined);

  const byBytes = new FrameRing(1000, 4096);
  const big = { kind: 'runtime-event', event: { type: 'text-delta', requestId: 'r', delta: 'x'.repeat(1000) } } as const;
  for (let i = 0; i < 10; i++) byBytes.push(big);
  const kept = byBytes.after(byBytes.cursor - 1)!;
  assert.equal(kept.length, 1);
  assert.equal(byBytes.after(0), undefined, 'the oldest frames were dropped to stay under the byte bound');
});
