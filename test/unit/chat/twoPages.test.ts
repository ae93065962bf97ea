import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatModel } from '../../../media/src/chatModel';
import { RequestIds, pageTag } from '../../../media/src/requestIds';
import { userMessageId } from '../../../src/core/ids';
import type { MessageRecord } from '../../../src/core/wire/records';
import type { SessionInfo } from '../../../src/protocol/frames';
import { SessionStream } from '../../../src/vscode/chat/sessionStream';

// The side bar's Chat view and an editor tab are two pages on one session: one SessionStream,
// one ring, each page with its own cursor.
const SESSION = 'ses_two';
const info = (): SessionInfo => ({ id: SESSION, title: 't', usage: { input: 0, output: 0, cacheRead: 0, costTotal: 0 }, queue: [], paused: false });
const user = (key: string): MessageRecord => ({
  v: 1,
  ts: 1,
  t: 'message',
  turn: 1,
  id: userMessageId(SESSION, key),
  message: { role: 'user', content: [{ type: 'text', text: 'Write notes' }], timestamp: 1 },
});

test('a prompt sent from one page streams into the other page live, approvals included; both end with the same transcript', () => {
  const pages = { sender: new ChatModel(), other: new ChatModel() };
  for (const page of Object.values(pages)) page.applySnapshot({ session: null, live: [], cursor: 0 });
  const stream = new SessionStream(SESSION, info, (frames) => {
    for (const page of Object.values(pages)) assert.ok(page.applyFrames(SESSION, frames));
  });
  pages.sender.addPending('req-a', 'Write notes');
  const prompt = { promptId: 'prm_1', text: 'Write notes', messageKey: 'req-a' };
  stream.onEvent({ type: 'prompt', prompt: { ...prompt, state: 'running' } });
  stream.onEvent({ type: 'turn-start', turn: 1, promptId: 'prm_1', mode: 'agent' });
  stream.onEvent({ type: 'message', record: user('req-a') });
  stream.onEvent({ type: 'text-delta', turn: 1, delta: 'Writing ' });
  assert.equal(pages.other.running, 'req-a', 'the other page knows a turn runs');
  assert.deepEqual(
    pages.other.entries.map((e) => [e.kind, 'text' in e ? e.text : '']),
    [
      ['user', 'Write notes'],
      ['live', 'Writing '],
    ],
    'the other page streams the answer as it comes',
  );
  // An approval asked during the turn shows on both pages; an answer from either resolves both.
  stream.push({ kind: 'runtime-event', event: { type: 'approval', approvalId: 'apr-1', tool: 'write_file', summary: 'Create notes.md', detail: '' } }, true);
  assert.ok(Object.values(pages).every((p) => p.entries.some((e) => e.kind === 'approval' && e.key === 'apr-1' && !e.decision)));
  stream.push({ kind: 'runtime-event', event: { type: 'approval-resolved', approvalId: 'apr-1', decision: 'allow' } });
  assert.ok(Object.values(pages).every((p) => p.entries.some((e) => e.kind === 'approval' && e.decision === 'allow')));
  stream.onEvent({ type: 'prompt', prompt: { ...prompt, state: 'completed' } });
  stream.onEvent({ type: 'turn-end', turn: 1, outcome: 'completed', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 } });
  assert.equal(JSON.stringify(pages.other.entries), JSON.stringify(pages.sender.entries));
  assert.equal(pages.other.cursor, pages.sender.cursor);
  assert.equal(pages.other.running, undefined);
});

test('two pages never make the same request id, even in the same millisecond', () => {
  const now = () => 1_700_000_000_000;
  const a = new RequestIds(pageTag(), now);
  const b = new RequestIds(pageTag(), now);
  const ids = [a.next('req'), b.next('req'), a.next('req'), b.next('req'), a.next('side'), b.next('side')];
  assert.equal(new Set(ids).size, ids.length, ids.join(' '));
  assert.ok(
    ids.every((id) => id.length <= 128),
    'the host accepts ids up to 128 characters',
  );
  assert.notEqual(pageTag(), pageTag());
});

test('a model switch is said once, after the newest entry', () => {
  const page = new ChatModel();
  page.applySnapshot({ session: null, live: [], cursor: 0 });
  page.addPending('req-1', 'hello');
  page.noteModel('The next turn uses a · one.');
  page.addPending('req-2', 'again');
  page.noteModel('The next turn uses b · two.');
  assert.deepEqual(
    page.entries.map((e) => [e.kind, 'text' in e ? e.text : '']),
    [
      ['pending', 'hello'],
      ['pending', 'again'],
      ['notice', 'The next turn uses b · two.'],
    ],
  );
});
