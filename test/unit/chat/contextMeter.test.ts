import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contextLevel, contextTooltip } from '../../../media/src/contextMeter';

test('the context meter warns within ten points of the compaction threshold and is full past it', () => {
  assert.equal(contextLevel(0.5, 0.8), 'ok');
  assert.equal(contextLevel(0.69, 0.8), 'ok');
  assert.equal(contextLevel(0.7, 0.8), 'warn');
  assert.equal(contextLevel(0.8, 0.8), 'full');
  assert.equal(contextLevel(1.2, 0.8), 'full');
});

test("the context meter's tooltip gives the fill, its parts, whether it is counted or estimated, and when the session compacts", () => {
  const counted = { used: 14_400, measured: true, system: 2_100, attachments: 0, conversation: 12_300, threshold: 0.8 };
  assert.equal(
    contextTooltip(counted, 20_000),
    [
      'Context: 14,400 of 20,000 tokens (72%), the last request as the provider counted it, and an estimate since',
      'System prompt and tools: about 2,100',
      'Conversation: 12,300',
      'Attachments: none',
      'Braid compacts the conversation at 80% (16,000 tokens): soon.',
    ].join('\n'),
  );
  const estimated = contextTooltip({ ...counted, used: 3_000, measured: false, conversation: 900 }, 20_000);
  assert.match(estimated, /^Context: 3,000 of 20,000 tokens \(15%\), an estimate\n/);
  assert.match(estimated, /Conversation: about 900\n/);
  assert.match(estimated, /at 80% \(16,000 tokens\)\.$/);
  assert.match(contextTooltip({ ...counted, used: 17_000 }, 20_000), /: at the end of the next turn\.$/);
});
