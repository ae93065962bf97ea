import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Context, Message } from '@mariozechner/pi-ai';
import { contextMessages, estimateTokens, keepBoundary, summaryMessage } from '../../../src/core/session/compaction';
import { contextUse, fixedTokens } from '../../../src/core/session/contextUse';
import type { SessionEvent } from '../../../src/core/session/events';
import { forkSession } from '../../../src/core/store/fork';
import type { CompactionRecord, MessageRecord, UsageRecord, WireRecord } from '../../../src/core/wire/records';
import { replay } from '../../../src/core/wire/replay';
import { fauxAssistantMessage, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });
const answer = (text: string): Message => fauxAssistantMessage(text);
const call = (id: string): Message => fauxAssistantMessage([fauxToolCall('read_file', { path: 'a.txt' }, { id })], { stopReason: 'toolUse' });
const result = (id: string, text: string): Message => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: 'read_file',
  content: [{ type: 'text', text }],
  isError: false,
  timestamp: 1,
});
const long = (n: number) => 'word '.repeat(n);

test('the kept tail never starts at a tool result: a call and its result stay on one side', () => {
  const messages = [
    user(long(200)),
    call('c1'),
    result('c1', long(300)),
    result('c1', long(10)),
    answer('done'),
    user('next'),
    call('c2'),
    result('c2', long(40)),
    answer('ok'),
  ];
  for (let keep = 0; keep <= 2000; keep += 7) {
    const cut = keepBoundary(messages, keep);
    if (cut === undefined) continue;
    assert.notEqual(messages[cut]!.role, 'toolResult', `keep ${keep} cut at ${cut}`);
    assert.ok(cut > 0 && cut < messages.length);
  }
  assert.equal(keepBoundary(messages, 1_000_000), undefined, 'everything fits: nothing to summarize');
  assert.equal(keepBoundary([user('only')], 0), undefined);
  assert.equal(keepBoundary(messages, 0), 5, 'a tail larger than the budget keeps its last prompt');
});

test('the model context starts from the latest effective compaction; a rewind before it drops it', () => {
  const [one, a1, two, a2, three, a3, four] = [user('one'), answer('1'), user('two'), answer('2'), user('three'), answer('3'), user('four')];
  const m = (turn: number, id: string, message: Message): MessageRecord => ({ v: 1, ts: 1, t: 'message', turn, id, message });
  const c = (turn: number, summary: string, firstKeptMessageId: string): CompactionRecord => ({
    v: 1,
    ts: 1,
    t: 'compaction',
    turn,
    summary,
    firstKeptMessageId,
    summarized: 2,
  });
  const records: WireRecord[] = [
    m(1, 'u1', one!),
    m(1, 'a1', a1!),
    m(2, 'u2', two!),
    m(2, 'a2', a2!),
    c(2, 'first summary', 'u2'),
    m(3, 'u3', three!),
    m(3, 'a3', a3!),
    c(3, 'second summary', 'u3'),
    m(4, 'u4', four!),
  ];
  const h = replay(records);
  assert.equal(h.messages.length, 7, 'every message stays in the history');
  const context = contextMessages(h);
  assert.match(JSON.stringify(context[0]), /second summary/);
  assert.deepEqual(context.slice(1), [three, a3, four]);
  const rewound = replay([...records, { v: 1, ts: 2, t: 'rewind', toTurn: 3, messageId: 'u3', files: false }]);
  assert.equal(rewound.compactions.length, 1);
  assert.match(JSON.stringify(contextMessages(rewound)[0]), /first summary/);
  const before = replay([...records, { v: 1, ts: 2, t: 'rewind', toTurn: 2, messageId: 'u2', files: false }]);
  assert.deepEqual(contextMessages(before), [one, a1], 'no compaction left: the full history');
});

const types = (records: WireRecord[]) => records.map((r) => (r.t === 'message' ? `message:${(r as MessageRecord).message.role}` : r.t));

/** A session with a tiny context window, so a few turns pass the threshold. */
async function smallWindow(f: SessionFixture, contextWindow = 400, sessionId?: string) {
  return f.open(
    { model: () => ({ model: { ...f.faux.getModel(), contextWindow }, thinking: 'off' }), compaction: { threshold: 0.8, keepTokens: 60 } },
    sessionId,
  );
}

test('near the threshold a turn ends with a compaction; the next request sees the summary and the kept tail; the log keeps everything', async () => {
  const f = await sessionFixture();
  try {
    const contexts: Context[] = [];
    const responder = (context: Context) => {
      contexts.push(context);
      if (/You keep the memory/.test(context.systemPrompt ?? '')) return fauxAssistantMessage('- note: the user asks long questions');
      return /You summarize/.test(context.systemPrompt ?? '')
        ? fauxAssistantMessage('SUMMARY: the user asked long questions.')
        : fauxAssistantMessage(long(60));
    };
    f.faux.setResponses(Array.from({ length: 20 }, () => responder));
    const session = await smallWindow(f);
    const events: SessionEvent[] = [];
    session.onEvent((e) => e.type === 'compaction' && events.push(e));
    for (const q of ['first question', 'second question', 'third question']) {
      await session.submit(`${q} ${long(40)}`);
      await session.waitForIdle();
    }
    const phases = events.map((e) => e.type === 'compaction' && `${e.phase}:${e.reason}`);
    assert.ok(phases.length >= 2);
    for (let i = 0; i < phases.length; i += 2) assert.deepEqual(phases.slice(i, i + 2), ['start:threshold', 'end:threshold']);
    const records = f.records(session.id);
    const compactions = records.filter((r): r is CompactionRecord => r.t === 'compaction');
    assert.equal(compactions.length, phases.length / 2);
    const compaction = compactions.at(-1)!;
    assert.match(compaction.summary, /SUMMARY/);
    assert.ok(compaction.summarized >= 1);
    const kept = records.find((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).id === compaction.firstKeptMessageId)!;
    assert.notEqual(kept.message.role, 'toolResult');
    const at = records.indexOf(compaction);
    assert.ok(
      records.slice(at).some((r) => r.t === 'turn_end'),
      'compaction runs before its turn ends',
    );
    const usage = records.filter((r): r is UsageRecord => r.t === 'usage');
    assert.equal(usage.filter((u) => u.purpose === 'compaction').length, compactions.length, 'each summary call is a usage record of its own');
    assert.equal(types(records).filter((t) => t === 'message:user').length, 3, 'no original record was removed');

    await session.submit('fourth question');
    await session.waitForIdle();
    const last = contexts.filter((c) => !/You summarize|You keep the memory/.test(c.systemPrompt ?? '')).at(-1)!;
    assert.match(JSON.stringify(last.messages[0]), /SUMMARY: the user asked/);
    assert.match(JSON.stringify(last.messages.at(-1)), /fourth question/);
    assert.doesNotMatch(JSON.stringify(last.messages), /first question/, 'the summarized part is not sent again');

    // Replay from the log gives the same context: the latest summary, then the kept tail.
    const h = f.store.history(session.id);
    const latest = h.compactions.at(-1)!;
    const from = h.messages.findIndex((r) => r.id === latest.firstKeptMessageId);
    assert.deepEqual(
      contextMessages(h).slice(1),
      h.messages.slice(from).map((r) => r.message),
    );
    // Reopened (the index is current, so the log is read back to the latest compaction only).
    await session.close();
    const reopened = await smallWindow(f, 400, session.id);
    assert.deepEqual(JSON.parse(JSON.stringify(reopened.messages)).slice(1), JSON.parse(JSON.stringify(contextMessages(h).slice(1))));
    assert.match(JSON.stringify(reopened.messages[0]), /SUMMARY: the user asked/);
  } finally {
    await f.cleanup();
  }
});

test('a context-length error compacts once and retries instead of failing the turn', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('a'.repeat(200)), fauxAssistantMessage('b'.repeat(200))]);
    const session = await f.open({ compaction: { threshold: 0.99, keepTokens: 10 } });
    await session.submit(`one ${long(50)}`);
    await session.waitForIdle();
    await session.submit(`two ${long(50)}`);
    await session.waitForIdle();
    f.faux.setResponses([
      fauxAssistantMessage('', { stopReason: 'error', errorMessage: "This model's maximum context length is 8192 tokens" }),
      fauxAssistantMessage('Summary of one and two.'),
      fauxAssistantMessage('- decision: one, then two'), // the session memory, extracted with the summary
      fauxAssistantMessage('Answer after the retry.'),
    ]);
    await session.submit('three');
    await session.waitForIdle();
    const records = f.records(session.id);
    const tail = types(records.slice(records.map((r) => r.t).lastIndexOf('turn_begin')));
    // The retry's prompt begins with the summary: the faux provider's cache (it plays one) reads
    // less of it, and the break is put down to the compaction.
    assert.deepEqual(tail, [
      'turn_begin',
      'message:user',
      'message:assistant',
      'usage',
      'compaction',
      'usage',
      'memory',
      'usage',
      'message:assistant',
      'usage',
      'cache_break',
      'turn_end',
    ]);
    assert.equal((records.at(-2) as { cause?: string }).cause, 'compaction');
    const end = records.at(-1) as { outcome: string };
    assert.equal(end.outcome, 'completed');
    assert.equal(f.store.get(session.id).status, 'idle');
  } finally {
    await f.cleanup();
  }
});

test('/compact on demand with a focus; nothing to summarize says so; a failed or stopped compaction leaves the session working', async () => {
  const f = await sessionFixture();
  try {
    const session = await f.open({ compaction: { threshold: 0.8, keepTokens: 20 } });
    assert.equal(await session.compact(), false, 'an empty session has nothing to summarize');
    f.faux.setResponses([fauxAssistantMessage(long(30)), fauxAssistantMessage(long(30))]);
    await session.submit(`alpha ${long(30)}`);
    await session.waitForIdle();
    await session.submit(`beta ${long(30)}`);
    await session.waitForIdle();

    f.faux.setResponses([fauxAssistantMessage('', { stopReason: 'error', errorMessage: 'server exploded' })]);
    await assert.rejects(session.compact(), /Compaction failed: server exploded\. The session is unchanged/);
    assert.equal(f.records(session.id).filter((r) => r.t === 'compaction').length, 0);
    f.faux.setResponses([fauxAssistantMessage('   ')]);
    await assert.rejects(session.compact(), /Compaction failed: the model returned an empty summary/);
    assert.equal(f.records(session.id).filter((r) => r.t === 'compaction').length, 0);
    const summaryCalls = () => f.records(session.id).filter((r) => r.t === 'usage' && (r as UsageRecord).purpose === 'compaction').length;
    assert.equal(summaryCalls(), 2, 'the failed summary calls are still counted (their usage only)');
    assert.equal(f.store.history(session.id).messages.length, 4, 'and nothing else changed');

    let sawFocus = '';
    f.faux.setResponses([
      (context: Context) => {
        sawFocus = JSON.stringify(context.messages);
        return fauxAssistantMessage('Focused summary.');
      },
    ]);
    assert.equal(await session.compact('the database schema'), true);
    assert.equal(summaryCalls(), 3);
    assert.match(sawFocus, /focus on: the database schema/);
    const compaction = f.records(session.id).find((r): r is CompactionRecord => r.t === 'compaction')!;
    assert.equal(compaction.turn, 2, 'between turns it belongs to the last turn');
    assert.equal(f.store.get(session.id).turnCount, 2);

    f.faux.setResponses([fauxAssistantMessage('still works')]);
    await session.submit('gamma');
    await session.waitForIdle();
    assert.equal(f.store.get(session.id).status, 'idle');
  } finally {
    await f.cleanup();
  }
});

test('stopping a compaction leaves no record', async () => {
  const f = await sessionFixture();
  try {
    const session = await f.open({ compaction: { threshold: 0.8, keepTokens: 20 } });
    f.faux.setResponses([fauxAssistantMessage(long(30)), fauxAssistantMessage(long(30))]);
    for (const q of ['one', 'two']) {
      await session.submit(`${q} ${long(30)}`);
      await session.waitForIdle();
    }
    f.faux.setResponses([
      (_context: Context, options) =>
        new Promise((resolve) => {
          options?.signal?.addEventListener('abort', () => resolve(fauxAssistantMessage('', { stopReason: 'aborted' })));
        }),
    ]);
    const running = session.compact();
    setTimeout(() => void session.cancel(), 50);
    await assert.rejects(running, /Compaction was stopped/);
    assert.equal(f.records(session.id).filter((r) => r.t === 'compaction').length, 0);
  } finally {
    await f.cleanup();
  }
});

test('fork at a turn before a compaction keeps the full records; rewind before it drops it', async () => {
  const f = await sessionFixture();
  try {
    const session = await f.open({ compaction: { threshold: 0.8, keepTokens: 20 } });
    f.faux.setResponses([
      fauxAssistantMessage(long(30)),
      fauxAssistantMessage(long(30)),
      fauxAssistantMessage('S'),
      fauxAssistantMessage('- note: M'),
      fauxAssistantMessage('after'),
    ]);
    for (const q of ['one', 'two']) {
      await session.submit(`${q} ${long(30)}`);
      await session.waitForIdle();
    }
    assert.equal(await session.compact(), true);
    await session.submit('three');
    await session.waitForIdle();

    const fork = await forkSession(f.store, session.id, { turn: 1 });
    const forked = f.store.history(fork.id);
    assert.equal(forked.compactions.length, 0);
    assert.deepEqual(
      contextMessages(forked).map((m) => m.role),
      ['user', 'assistant'],
    );

    const whole = f.store.history(session.id);
    assert.equal(whole.compactions.length, 1);
    const two = whole.messages.filter((r) => r.message.role === 'user')[1]!;
    await session.rewind(two.id, { files: false });
    const after = f.store.history(session.id);
    assert.equal(after.compactions.length, 0, 'the compaction of turn 2 went with it');
    assert.deepEqual(
      contextMessages(after).map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.doesNotMatch(JSON.stringify(session.messages), /system-reminder/, 'the kernel no longer sees the summary');
    void summaryMessage;
  } finally {
    await f.cleanup();
  }
});

test('with the default settings a short session that overflows still compacts (keeping its newest exchange) and retries', async () => {
  const f = await sessionFixture();
  try {
    const session = await f.open();
    f.faux.setResponses([fauxAssistantMessage('first answer')]);
    await session.submit('first');
    await session.waitForIdle();
    f.faux.setResponses([
      fauxAssistantMessage('', { stopReason: 'error', errorMessage: 'prompt is too long: 210000 tokens > 200000 maximum' }),
      fauxAssistantMessage('Summary: one exchange.'),
      fauxAssistantMessage('- note: one exchange so far'), // the session memory
      fauxAssistantMessage('second answer'),
    ]);
    await session.submit('second');
    await session.waitForIdle();
    const records = f.records(session.id);
    const compaction = records.find((r): r is CompactionRecord => r.t === 'compaction')!;
    const kept = records.find((r) => r.t === 'message' && (r as MessageRecord).id === compaction.firstKeptMessageId) as MessageRecord;
    assert.match(JSON.stringify(kept.message), /second/, 'the newest prompt is kept verbatim');
    assert.equal((records.at(-1) as { outcome: string }).outcome, 'completed');
    const markdown = f.store.export(session.id, 'md');
    assert.match(markdown, /The model call failed: prompt is too long/);
    assert.match(markdown, /Context compacted: 2 earlier messages summarized/);
    assert.match(markdown, /Summary: one exchange\./);
  } finally {
    await f.cleanup();
  }
});

test('context use: the newest answer counted by its provider plus an estimate after it; an estimate when it has no count or a compaction replaced what it counted', () => {
  const counted = { ...fauxAssistantMessage('ok'), usage: { ...fauxAssistantMessage('ok').usage, input: 900, output: 100, totalTokens: 1000 } };
  const after = user('x'.repeat(400)); // 400 characters and 16 of overhead: 104 tokens
  const fixed = 50;
  assert.deepEqual(contextUse([user('hi'), counted, after], fixed, 0.8), {
    used: 1104,
    measured: true,
    system: 50,
    attachments: 0,
    conversation: 1054,
    threshold: 0.8,
  });
  const estimate = estimateTokens([user('hi'), counted, after]) + fixed;
  const stale = contextUse([user('hi'), counted, after], fixed, 0.8, (m) => m !== counted);
  assert.deepEqual([stale.used, stale.measured], [estimate, false], 'a count from before a compaction is not trusted');
  const failed = { ...counted, stopReason: 'error' as const };
  assert.equal(
    contextUse([user('hi'), counted, user('again'), failed], fixed, 0.8).used,
    1000 + estimateTokens([user('again'), failed]),
    'a failed answer has no count of its own: the one before it counts, the rest is estimated',
  );
  assert.deepEqual(contextUse([], fixed, 0.8), { used: 50, measured: false, system: 50, attachments: 0, conversation: 0, threshold: 0.8 });
  // What the user attached is its own part: its <attachment> blocks, estimated.
  const block = `<attachment kind="file" path="a.ts">\n${'y'.repeat(792)}\n</attachment>`;
  const attached: Message = {
    role: 'user',
    content: [
      { type: 'text', text: block },
      { type: 'text', text: 'explain' },
    ],
    timestamp: 0,
  };
  const withFile = contextUse([user('hi'), counted, attached], fixed, 0.8);
  assert.equal(withFile.attachments, Math.ceil(block.length / 4));
  assert.equal(withFile.system + withFile.attachments + withFile.conversation, withFile.used);
  const tools = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object' } }];
  assert.equal(fixedTokens('s'.repeat(400), tools), Math.ceil((400 + JSON.stringify(tools).length) / 4));
});

test("a session's context use drops across a compaction, stays an estimate when reopened, and is counted again after the next answer", async () => {
  const f = await sessionFixture();
  try {
    const session = await f.open({ compaction: { threshold: 0.8, keepTokens: 20 } });
    f.faux.setResponses([fauxAssistantMessage(long(300)), fauxAssistantMessage(long(300)), fauxAssistantMessage('Short summary.')]);
    for (const q of ['one', 'two']) {
      await session.submit(`${q} ${long(300)}`);
      await session.waitForIdle();
    }
    const before = session.contextUse();
    assert.equal(before.measured, true);
    assert.ok(before.used > 1000 && before.system > 0, JSON.stringify(before));
    assert.equal(await session.compact(), true);
    const compacted = session.contextUse();
    assert.equal(compacted.measured, false, 'the last answer was counted with what the summary replaced');
    // The first exchange, about 3,000 characters, was summarized in two words.
    assert.ok(compacted.used < before.used - 600, `${compacted.used} after, ${before.used} before`);
    await session.close();

    const reopened = await f.open({ compaction: { threshold: 0.8, keepTokens: 20 } }, session.id);
    assert.deepEqual(reopened.contextUse(), compacted, 'reopened, the context is the summary and the kept tail, estimated');
    f.faux.setResponses([fauxAssistantMessage('after')]);
    await reopened.submit('three');
    await reopened.waitForIdle();
    const next = reopened.contextUse();
    assert.equal(next.measured, true);
    assert.ok(next.used < before.used, `${next.used} now, ${before.used} before the compaction`);
  } finally {
    await f.cleanup();
  }
});
