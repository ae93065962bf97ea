import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '@mariozechner/pi-ai';
import { ChatModel } from '../../../media/src/chatModel';
import { userMessageId } from '../../../src/core/ids';
import type { SessionEvent } from '../../../src/core/session/events';
import type { MessageRecord } from '../../../src/core/wire/records';
import type { SessionInfo, StreamFrame } from '../../../src/protocol/frames';
import { SessionStream } from '../../../src/vscode/chat/sessionStream';
import { toEntries } from '../../../src/vscode/chat/transcript';

const SESSION = 'ses_test';
const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 };

/** A turn as a Session emits it: a prompt that streams text, calls a tool that edits a file, then answers. */
/** An edit's diff as the edit tool's result keeps it: the change with the file's lines around it. */
const DIFF = '@@ -1,3 +1,3 @@\n export const a = 1;\n-hi\n+hello\n export const b = 2;';

function turnEvents(key: string, usage = { ...zero, input: 30, output: 9 }): { events: SessionEvent[]; records: MessageRecord[] } {
  const user: MessageRecord = {
    v: 1,
    ts: 1,
    t: 'message',
    turn: 1,
    id: userMessageId(SESSION, key),
    message: { role: 'user', content: [{ type: 'text', text: 'Fix the greeting' }], timestamp: 1 },
  };
  const assistant1 = {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me edit it.' },
      { type: 'toolCall', id: 'call_1', name: 'edit_file', arguments: { path: 'a.ts', old_text: 'hi', new_text: 'hello' } },
    ],
    api: 'openai-completions',
    provider: 'p',
    model: 'm',
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: 'toolUse',
    timestamp: 2,
  } as Message;
  const result = {
    role: 'toolResult',
    toolCallId: 'call_1',
    toolName: 'edit_file',
    content: [{ type: 'text', text: 'Edited a.ts' }],
    details: { path: 'a.ts', replacements: 1, diff: DIFF },
    isError: false,
    timestamp: 3,
  } as Message;
  const assistant2 = { ...assistant1, content: [{ type: 'text', text: 'Done: it says hello.' }], stopReason: 'stop', timestamp: 4 } as Message;
  const records: MessageRecord[] = [
    user,
    { v: 1, ts: 1, t: 'message', turn: 1, id: 'msg_a1', message: assistant1 },
    { v: 1, ts: 1, t: 'message', turn: 1, id: 'msg_r1', message: result },
    { v: 1, ts: 1, t: 'message', turn: 1, id: 'msg_a2', message: assistant2 },
  ];
  const prompt = { promptId: 'prm_1', text: 'Fix the greeting', messageKey: key };
  const events: SessionEvent[] = [
    { type: 'prompt', prompt: { ...prompt, state: 'pending' } },
    { type: 'prompt', prompt: { ...prompt, state: 'running' } },
    { type: 'turn-start', turn: 1, promptId: 'prm_1', mode: 'agent' },
    { type: 'message', record: records[0]! },
    { type: 'thinking-delta', turn: 1, delta: 'The user wants ' },
    { type: 'thinking-delta', turn: 1, delta: 'hello.' },
    { type: 'text-delta', turn: 1, delta: 'Let me ' },
    { type: 'text-delta', turn: 1, delta: 'edit it.' },
    { type: 'message', record: records[1]! },
    { type: 'tool-start', turn: 1, toolCallId: 'call_1', name: 'edit_file', args: { path: 'a.ts', old_text: 'hi', new_text: 'hello' } },
    { type: 'tool-end', turn: 1, toolCallId: 'call_1', name: 'edit_file', isError: false, text: 'Edited a.ts', diff: DIFF },
    { type: 'message', record: records[2]! },
    { type: 'text-delta', turn: 1, delta: 'Done: it ' },
    { type: 'text-delta', turn: 1, delta: 'says hello.' },
    { type: 'message', record: records[3]! },
    { type: 'prompt', prompt: { ...prompt, state: 'completed' } },
    { type: 'turn-end', turn: 1, outcome: 'completed', usage },
  ];
  return { events, records };
}

/** The session's own usage as the index has it; a test moves it on as the session's calls are recorded. */
let ownUsage = { input: 0, output: 0, cacheRead: 0, costTotal: 0 };

function info(): SessionInfo {
  return { id: SESSION, title: 't', usage: ownUsage, queue: [], paused: false };
}

test('a turn becomes frames: deltas are live until their message commits, the user message carries its request id', () => {
  const sent: StreamFrame[] = [];
  const stream = new SessionStream(SESSION, info, (f) => sent.push(...f));
  const { events } = turnEvents('req-1');
  const liveAfter: number[] = [];
  ownUsage = { input: 100, output: 20, cacheRead: 0, costTotal: 0 }; // earlier turns
  for (const e of events) {
    // By the turn's end the index counts its calls (the turn ends after they are recorded).
    if (e.type === 'turn-end') ownUsage = { input: 130, output: 29, cacheRead: 0, costTotal: 0 };
    stream.onEvent(e);
    liveAfter.push(stream.liveFrames().length);
  }
  assert.deepEqual(
    sent.map((f) => f.cursor),
    sent.map((_, i) => i + 1),
    'cursors are 1, 2, 3, ...',
  );
  const committedUser = sent.find((f) => f.kind === 'message-committed' && f.entries[0]?.kind === 'user');
  assert.equal(committedUser?.kind === 'message-committed' && committedUser.requestId, 'req-1');
  // Two thinking deltas and two text deltas merge into one live frame each.
  assert.equal(liveAfter[3], 0, 'the user message committed: nothing of the turn is live yet');
  assert.equal(liveAfter[7], 2, 'thinking + text, each merged');
  assert.equal(liveAfter[8], 0, 'the assistant message committed what streamed');
  assert.equal(liveAfter[10], 2, 'the tool started and ended, not committed yet');
  assert.equal(liveAfter[11], 2, 'a tool result does not clear the live part');
  assert.equal(liveAfter[16], 0);
  const terminal = sent.find((f) => f.kind === 'turn-terminal');
  assert.deepEqual(terminal?.kind === 'turn-terminal' && terminal.usage, { input: 30, output: 9, cacheRead: 0, costTotal: 0 }, "the turn's own calls");
  assert.equal(stream.active, undefined);
  ownUsage = { input: 0, output: 0, cacheRead: 0, costTotal: 0 };
});

test('a page that comes back at any point of a turn ends with the same transcript as one that saw every frame', () => {
  const { events, records } = turnEvents('req-1');
  const all: StreamFrame[] = [];
  const stream = new SessionStream(SESSION, info, (f) => all.push(...f));
  const watcher = new ChatModel();
  watcher.applySnapshot({ session: null, live: [], cursor: 0 });
  watcher.addPending('req-1', 'Fix the greeting');
  const snapshots: { at: number; committed: MessageRecord[]; live: StreamFrame[]; cursor: number; active: string | undefined }[] = [];
  for (const e of events) {
    stream.onEvent(e);
    const committed = records.filter((r) => events.slice(0, events.indexOf(e) + 1).some((x) => x.type === 'message' && x.record === r));
    snapshots.push({ at: all.length, committed, live: stream.liveFrames(), cursor: stream.ring.cursor, active: stream.active });
  }
  assert.ok(watcher.applyFrames(SESSION, all));
  const expected = JSON.stringify(watcher.entries);
  assert.deepEqual(
    watcher.entries.map((e) => e.kind),
    ['user', 'assistant', 'tool', 'assistant', 'status'],
  );
  const tool = watcher.entries[2]!;
  assert.equal(tool.kind === 'tool' && tool.status, 'done');
  assert.equal(tool.kind === 'tool' && tool.diff, DIFF, "the edit's diff with its context, live as from the log");

  for (const s of snapshots) {
    const page = new ChatModel();
    page.applySnapshot({
      session: { info: info(), entries: toEntries(s.committed), ...(s.active ? { activeRequest: s.active } : {}) },
      live: s.live,
      cursor: s.cursor,
    });
    assert.ok(page.applyFrames(SESSION, all.slice(s.at)));
    // A turn's status line is live output only: a page loaded after the turn ended has none.
    const ended = all.slice(0, s.at).some((f) => f.kind === 'turn-terminal');
    const seen = ended ? JSON.stringify(watcher.entries.filter((e) => e.kind !== 'status')) : expected;
    assert.equal(JSON.stringify(page.entries), seen, `resumed after frame ${s.at}`);
  }
});

test('a gap in the cursors is reported so the page can ask for what it missed; seen frames are skipped', () => {
  const frames: StreamFrame[] = [];
  const stream = new SessionStream(SESSION, info, (f) => frames.push(...f));
  for (const e of turnEvents('req-2').events) stream.onEvent(e);
  const page = new ChatModel();
  page.applySnapshot({ session: { info: info(), entries: [] }, live: [], cursor: 0 });
  assert.ok(page.applyFrames(SESSION, frames.slice(0, 3)));
  assert.equal(page.applyFrames(SESSION, frames.slice(5)), false, 'frames 4 and 5 are missing');
  assert.equal(page.cursor, 3);
  assert.ok(page.applyFrames(SESSION, frames.slice(1)), 'a resend from the ring fills the gap; frames 2-3 are skipped');
  assert.equal(page.cursor, frames.length);
  assert.ok(page.applyFrames('ses_other', frames), 'frames of another session are ignored');
});

test('a prompt cancelled in the queue leaves it quietly; one that fails to start ends with an error', () => {
  const sent: StreamFrame[] = [];
  const stream = new SessionStream(SESSION, info, (f) => sent.push(...f));
  const queued = { promptId: 'prm_q', text: 'later', messageKey: 'req-q' };
  stream.onEvent({ type: 'prompt', prompt: { ...queued, state: 'pending' } });
  stream.onEvent({ type: 'prompt', prompt: { ...queued, state: 'cancelled' } });
  assert.deepEqual(
    sent.map((f) => f.kind),
    ['session-updated', 'session-updated'],
  );
  stream.onEvent({ type: 'prompt', prompt: { ...queued, messageKey: 'req-f', state: 'failed', reason: 'No model is configured.' } });
  const terminal = sent.at(-2);
  assert.deepEqual(terminal?.kind === 'turn-terminal' && [terminal.requestId, terminal.outcome, terminal.error], [
    'req-f',
    'failed',
    'No model is configured.',
  ]);
});

test('a compaction shows as a divider after the message it follows, live and from the log alike; its progress line goes away', () => {
  const sent: StreamFrame[] = [];
  const stream = new SessionStream(SESSION, info, (f) => sent.push(...f));
  const { events, records } = turnEvents('req-c');
  const record = { v: 1 as const, ts: 9, t: 'compaction' as const, turn: 1, summary: 'They fixed the greeting.', firstKeptMessageId: 'msg_a2', summarized: 3 };
  const withCompaction: SessionEvent[] = [
    ...events.slice(0, -2),
    { type: 'compaction', phase: 'start', reason: 'threshold' },
    { type: 'compaction', phase: 'end', reason: 'threshold', record },
    ...events.slice(-2),
  ];
  const page = new ChatModel();
  page.applySnapshot({ session: null, live: [], cursor: 0 });
  page.addPending('req-c', 'Fix the greeting');
  for (const e of withCompaction) {
    stream.onEvent(e);
    if (e.type === 'compaction' && e.phase === 'start') {
      page.applyFrames(SESSION, sent.splice(0));
      assert.equal(page.entries.at(-1)?.kind, 'notice', 'a progress line while it runs');
    }
  }
  page.applyFrames(SESSION, sent.splice(0));
  const kinds = page.entries.map((e) => e.kind);
  assert.deepEqual(kinds, ['user', 'assistant', 'tool', 'assistant', 'compaction', 'status']);
  const fromLog = toEntries(records, { compactions: [{ record, afterMessageId: 'msg_a2' }] });
  assert.deepEqual(
    fromLog.map((e) => e.kind),
    ['user', 'assistant', 'tool', 'assistant', 'compaction'],
  );
  assert.equal(fromLog[4]!.key, page.entries[4]!.key, 'the same key live and stored');
});
