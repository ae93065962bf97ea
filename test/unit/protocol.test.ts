import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_OLDER_PAGE, MAX_PROMPT_CHARS, PROTOCOL_VERSION } from '../../src/protocol/messages';
import { parseWebviewMessage } from '../../src/protocol/validate';

test('valid webview messages parse to their typed form, extra fields dropped', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'ready', protocol: PROTOCOL_VERSION, extra: 1 }), {
    ok: true,
    message: { type: 'ready', protocol: PROTOCOL_VERSION },
  });
  assert.deepEqual(parseWebviewMessage({ type: 'prompt', requestId: 'r1', text: 'hi', html: '<b>' }), {
    ok: true,
    message: { type: 'prompt', requestId: 'r1', text: 'hi' },
  });
  assert.deepEqual(parseWebviewMessage({ type: 'prompt', requestId: 'r2', text: '/review a.ts', command: true }), {
    ok: true,
    message: { type: 'prompt', requestId: 'r2', text: '/review a.ts', command: true },
  });
  assert.deepEqual(parseWebviewMessage({ type: 'prompt', requestId: 'r3', text: '/review', command: 'yes' }), {
    ok: true,
    message: { type: 'prompt', requestId: 'r3', text: '/review' },
  });
  assert.deepEqual(
    parseWebviewMessage({ type: 'cancel', requestId: 'r1' }),
    { ok: true, message: { type: 'cancel' } },
    'Stop ends the running turn, whichever page sent it',
  );
  assert.deepEqual(parseWebviewMessage({ type: 'messageAction', action: 'fork', messageId: 'm1' }), {
    ok: true,
    message: { type: 'messageAction', action: 'fork', messageId: 'm1' },
  });
  assert.deepEqual(parseWebviewMessage({ type: 'messageAction', action: 'forkWorktree', messageId: 'm1' }), {
    ok: true,
    message: { type: 'messageAction', action: 'forkWorktree', messageId: 'm1' },
  });
  assert.deepEqual(parseWebviewMessage({ type: 'messageAction', action: 'edit', requestId: 'r1' }), {
    ok: true,
    message: { type: 'messageAction', action: 'edit', requestId: 'r1' },
  });
  assert.deepEqual(parseWebviewMessage({ type: 'openDiff', toolCallId: 'call_1', path: '/etc/passwd' }), {
    ok: true,
    message: { type: 'openDiff', toolCallId: 'call_1' },
  });
  assert.deepEqual(parseWebviewMessage({ type: 'listModels', x: 1 }), { ok: true, message: { type: 'listModels' } });
  assert.deepEqual(
    parseWebviewMessage({ type: 'selectModel', choice: { kind: 'model', provider: 'openai-compatible', model: 'qwen2.5:7b', baseUrl: 'http://evil' } }),
    { ok: true, message: { type: 'selectModel', choice: { kind: 'model', provider: 'openai-compatible', model: 'qwen2.5:7b' } } },
  );
  assert.deepEqual(parseWebviewMessage({ type: 'selectModel', choice: { kind: 'provider', provider: 'anthropic', model: 'x' } }), {
    ok: true,
    message: { type: 'selectModel', choice: { kind: 'provider', provider: 'anthropic' } },
  });
});

test('malformed and unknown webview messages are rejected with a reason', () => {
  const bad: unknown[] = [
    null,
    'ready',
    [],
    { type: 'ready' },
    { type: 'ready', protocol: 1.5 },
    { type: 'prompt', requestId: 'r', text: '   ' },
    { type: 'prompt', text: 'x' },
    { type: 'prompt', requestId: '', text: 'x' },
    { type: 'prompt', requestId: 'r', text: 'x'.repeat(MAX_PROMPT_CHARS + 1) },
    { type: 'prompt', requestId: 'r'.repeat(200), text: 'x' },
    { type: 'runShell', command: 'rm -rf /' },
    // Names every object has are no message types.
    { type: 'toString' },
    { type: 'constructor' },
    { type: '__proto__' },
    { type: 'hasOwnProperty' },
    { type: 1 },
    { protocol: PROTOCOL_VERSION },
    { type: 'messageAction', action: 'delete', messageId: 'm' },
    { type: 'openDiff' },
    { type: 'openDiff', toolCallId: 'c'.repeat(200) },
    { type: 'messageAction', action: 'fork' },
    { type: 'messageAction', action: 'fork', messageId: 'm', requestId: 'r' },
    { type: 'selectModel' },
    { type: 'selectModel', choice: { kind: 'model', provider: 'openai' } },
    { type: 'selectModel', choice: { kind: 'setting', provider: 'openai' } },
    { type: 'selectModel', choice: { kind: 'model', provider: '', model: 'm' } },
    { type: 'selectModel', choice: { kind: 'model', provider: 'p', model: 'm'.repeat(300) } },
    { type: 'prompt', requestId: 'r', text: 'x', mode: 'yolo' },
    { type: 'prompt', requestId: 'r', text: 'x', mode: 3 },
    { type: 'changes', action: 'redo', scope: 'turn', keys: 'all' },
    { type: 'changes', action: 'keep', scope: 'everything', keys: 'all' },
    { type: 'changes', action: 'keep', scope: 'turn', keys: [''] },
    { type: 'changes', action: 'keep', scope: 'turn', keys: 'some' },
    { type: 'changes', action: 'diff', scope: 'turn', keys: 'all' },
    { type: 'changes', action: 'diff', scope: 'turn', keys: ['a', 'b'] },
  ];
  for (const raw of bad) {
    const parsed = parseWebviewMessage(raw);
    assert.equal(parsed.ok, false, JSON.stringify(raw)?.slice(0, 80));
    if (!parsed.ok) assert.ok(parsed.reason.length > 0);
  }
});

test('the chat messages of protocol 2 parse, and their malformed forms are rejected', () => {
  const good: [unknown, unknown][] = [
    [
      { type: 'framesAfter', after: 12 },
      { type: 'framesAfter', after: 12 },
    ],
    [
      { type: 'prompt', requestId: 'r', text: 'x', steer: true },
      { type: 'prompt', requestId: 'r', text: 'x', steer: true },
    ],
    [
      { type: 'prompt', requestId: 'r', text: 'x', steer: 'yes' },
      { type: 'prompt', requestId: 'r', text: 'x' },
    ],
    [
      { type: 'prompt', requestId: 'r', text: 'x', mode: 'plan' },
      { type: 'prompt', requestId: 'r', text: 'x', mode: 'plan' },
    ],
    [
      { type: 'changes', action: 'undo', scope: 'turn', keys: 'all', extra: 1 },
      { type: 'changes', action: 'undo', scope: 'turn', keys: 'all' },
    ],
    [
      { type: 'changes', action: 'diff', scope: 'session', keys: ['/w\u0000a.md'] },
      { type: 'changes', action: 'diff', scope: 'session', keys: ['/w\u0000a.md'] },
    ],
    [
      { type: 'queueAction', action: 'steer', promptId: 'p' },
      { type: 'queueAction', action: 'steer', promptId: 'p' },
    ],
    [
      { type: 'approval', approvalId: 'a', decision: 'allow-session' },
      { type: 'approval', approvalId: 'a', decision: 'allow-session' },
    ],
    [
      { type: 'loadOlder', sessionId: 's', before: { offset: 10, minRewind: null }, limit: 80, extra: 1 },
      { type: 'loadOlder', sessionId: 's', before: { offset: 10, minRewind: null }, limit: 80 },
    ],
    [
      { type: 'loadOlder', sessionId: 's', before: { offset: 0, minRewind: 3 }, limit: MAX_OLDER_PAGE },
      { type: 'loadOlder', sessionId: 's', before: { offset: 0, minRewind: 3 }, limit: MAX_OLDER_PAGE },
    ],
    [
      { type: 'command', name: 'compact', arg: ' focus ' },
      { type: 'command', name: 'compact', arg: 'focus' },
    ],
    [
      { type: 'command', name: 'trust' },
      { type: 'command', name: 'trust' },
    ],
    [
      { type: 'command', name: 'undoRewind', extra: 1 },
      { type: 'command', name: 'undoRewind' },
    ],
    [
      { type: 'sideQuestion', id: 's1', text: 'why?' },
      { type: 'sideQuestion', id: 's1', text: 'why?' },
    ],
    [
      { type: 'keepSide', id: 's1' },
      { type: 'keepSide', id: 's1' },
    ],
  ];
  for (const [raw, message] of good) assert.deepEqual(parseWebviewMessage(raw), { ok: true, message }, JSON.stringify(raw));
  const bad: unknown[] = [
    { type: 'framesAfter', after: -1 },
    { type: 'framesAfter', after: 1.5 },
    { type: 'queueAction', action: 'run', promptId: 'p' },
    { type: 'queueAction', action: 'steer' },
    { type: 'approval', approvalId: 'a', decision: 'always' },
    { type: 'loadOlder', sessionId: 's', before: { offset: 'x', minRewind: 1 }, limit: 80 },
    { type: 'loadOlder', before: { offset: 1, minRewind: 1 }, limit: 80 },
    { type: 'loadOlder', sessionId: 's', before: { offset: -1, minRewind: 1 }, limit: 80 },
    { type: 'loadOlder', sessionId: 's', before: { offset: 1, minRewind: null } },
    { type: 'loadOlder', sessionId: 's', before: { offset: 1, minRewind: null }, limit: 0 },
    { type: 'loadOlder', sessionId: 's', before: { offset: 1, minRewind: null }, limit: MAX_OLDER_PAGE + 1 },
    { type: 'loadOlder', sessionId: 's', before: { offset: 1, minRewind: null }, limit: 80.5 },
    { type: 'loadOlder', sessionId: 's', before: { offset: 1, minRewind: null }, limit: '80' },
    { type: 'loadOlder', sessionId: 's', before: { offset: 1, minRewind: null }, limit: 1e300 },
    { type: 'command', name: 'btw' },
    { type: 'command', name: 'rm' },
    { type: 'command', name: ['trust'] },
    { type: 'command', name: 'compact', arg: 'x'.repeat(3000) },
    { type: 'sideQuestion', id: 's', text: ' ' },
    { type: 'keepSide' },
  ];
  for (const raw of bad) assert.equal(parseWebviewMessage(raw).ok, false, JSON.stringify(raw).slice(0, 80));
});
