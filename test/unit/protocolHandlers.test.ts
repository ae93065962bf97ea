import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dispatch, type MessageHandlers } from '../../src/protocol/handlers';
import type { HostToWebview, WebviewToHost } from '../../src/protocol/messages';
import { parseWebviewMessage, WEBVIEW_MESSAGES } from '../../src/protocol/validate';

type Toy = { readonly type: 'a'; readonly n: number } | { readonly type: 'b'; readonly s: string };

test('dispatch calls the handler of the message type, with its arguments, and returns what it returns', () => {
  const seen: string[] = [];
  const handlers: MessageHandlers<Toy, [string], number> = {
    a: (message, from) => (seen.push(`a ${message.n} ${from}`), message.n * 2),
    b: (message, from) => (seen.push(`b ${message.s} ${from}`), message.s.length),
  };
  assert.equal(dispatch(handlers, { type: 'a', n: 21 }, 'page1'), 42);
  assert.equal(dispatch(handlers, { type: 'b', s: 'xyz' }, 'page2'), 3);
  assert.deepEqual(seen, ['a 21 page1', 'b xyz page2']);
});

test('a handler map missing a message type, or with a type its union lacks, fails typecheck', () => {
  // These lines are checked by `npm run typecheck`: each @ts-expect-error fails it if its line compiles.
  // @ts-expect-error -- no handler for 'b'
  const missing: MessageHandlers<Toy> = { a: () => {} };
  const extra: MessageHandlers<Toy> = {
    a: () => {},
    b: () => {},
    // @ts-expect-error -- 'c' is not a Toy message
    c: () => {},
  };
  // @ts-expect-error -- the page must handle every message the host sends
  const page: MessageHandlers<HostToWebview> = { snapshot: () => {} };
  // @ts-expect-error -- the host must handle every message the page sends
  const host: MessageHandlers<WebviewToHost> = { ready: () => {} };
  assert.deepEqual(
    [missing, extra, page, host].map((h) => Object.keys(h).length),
    [1, 3, 1, 1],
  );
});

test('every message type of the table parses to a message of that type, and nothing outside the table parses', () => {
  const samples: Record<WebviewToHost['type'], Record<string, unknown>> = {
    ready: { protocol: 1 },
    framesAfter: { after: 0 },
    prompt: { requestId: 'r', text: 'hi' },
    mentionQuery: { id: 1, query: '' },
    cancel: {},
    queueAction: { action: 'steer', promptId: 'p' },
    approval: { approvalId: 'a', decision: 'deny' },
    openDiff: { toolCallId: 'c' },
    changes: { action: 'keep', scope: 'turn', keys: 'all' },
    messageAction: { action: 'rewind', messageId: 'm' },
    loadOlder: { sessionId: 's', before: { offset: 0, minRewind: null }, limit: 1 },
    command: { name: 'new' },
    listModels: {},
    listCommands: {},
    selectModel: { choice: { kind: 'provider', provider: 'anthropic' } },
    sideQuestion: { id: 's', text: 'why?' },
    keepSide: { id: 's' },
    chooseMode: { mode: 'ask' },
  };
  assert.deepEqual(Object.keys(WEBVIEW_MESSAGES).sort(), Object.keys(samples).sort());
  for (const [type, fields] of Object.entries(samples)) {
    const parsed = parseWebviewMessage({ ...fields, type, unchecked: 'dropped' });
    assert.ok(parsed.ok, `${type}: ${parsed.ok ? '' : parsed.reason}`);
    assert.equal(parsed.message.type, type);
    assert.equal('unchecked' in parsed.message, false, type);
  }
  for (const type of ['Ready', 'snapshot', 'valueOf', '__proto__', '']) {
    const parsed = parseWebviewMessage({ type });
    assert.equal(parsed.ok, false, type);
    if (!parsed.ok) assert.match(parsed.reason, /^unknown type/);
  }
});
