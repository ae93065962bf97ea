import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PROMPT_CHARS, PROTOCOL_VERSION } from '../../src/protocol/messages';
import { parseWebviewMessage } from '../../src/protocol/validate';

test('valid webview messages parse to their typed form, extra fields dropped', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'ready', protocol: PROTOCOL_VERSION, extra: 1 }), { ok: true, message: { type: 'ready', protocol: PROTOCOL_VERSION } });
  assert.deepEqual(parseWebviewMessage({ type: 'prompt', requestId: 'r1', text: 'hi', html: '<b>' }), { ok: true, message: { type: 'prompt', requestId: 'r1', text: 'hi' } });
  assert.deepEqual(parseWebviewMessage({ type: 'cancel', requestId: 'r1' }), { ok: true, message: { type: 'cancel', requestId: 'r1' } });
  assert.deepEqual(parseWebviewMessage({ type: 'messageAction', action: 'fork', messageId: 'm1' }), { ok: true, message: { type: 'messageAction', action: 'fork', messageId: 'm1' } });
  assert.deepEqual(parseWebviewMessage({ type: 'messageAction', action: 'edit', requestId: 'r1' }), { ok: true, message: { type: 'messageAction', action: 'edit', requestId: 'r1' } });
});

test('malformed and unknown webview messages are rejected with a reason', () => {
  const bad: unknown[] = [
    null, 'ready', [], { type: 'ready' }, { type: 'ready', protocol: 1.5 },
    { type: 'prompt', requestId: 'r', text: '   ' }, { type: 'prompt', text: 'x' }, { type: 'prompt', requestId: '', text: 'x' },
    { type: 'prompt', requestId: 'r', text: 'x'.repeat(MAX_PROMPT_CHARS + 1) },
    { type: 'prompt', requestId: 'r'.repeat(200), text: 'x' },
    { type: 'cancel' }, { type: 'runShell', command: 'rm -rf /' },
    { type: 'messageAction', action: 'delete', messageId: 'm' }, { type: 'messageAction', action: 'fork' },
    { type: 'messageAction', action: 'fork', messageId: 'm', requestId: 'r' },
  ];
  for (const raw of bad) {
    const parsed = parseWebviewMessage(raw);
    assert.equal(parsed.ok, false, JSON.stringify(raw)?.slice(0, 80));
    if (!parsed.ok) assert.ok(parsed.reason.length > 0);
  }
});
