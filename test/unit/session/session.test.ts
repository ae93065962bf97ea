import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { userMessageId } from '../../../src/core/ids';
import type { SessionEvent } from '../../../src/core/session/events';
import { keepSideQuestion } from '../../../src/core/store/fork';
import { readState } from '../../../src/core/format/sessionState';
import type { MessageRecord, WireRecord } from '../../../src/core/wire/records';
import { fauxAssistantMessage, fauxText, fauxToolCall, sessionFixture } from '../../support/session';

// The faux provider puts the tools after the conversation when it plays a prompt cache, so a call
// after a tool result reads little from it: its cache breaks are not a real provider's, and the
// order tests leave them out.
const conversation = (records: WireRecord[]) => records.filter((r) => r.t !== 'cache_break');
const types = (records: WireRecord[]) => conversation(records).map((r) => (r.t === 'message' ? `message:${(r as MessageRecord).message.role}` : r.t));

test('a turn is persisted in order: turn_begin, user, assistant, usage, turn_end; state idle and named', async () => {
  const f = await sessionFixture({ 'AGENTS.md': 'Always answer in English.' });
  try {
    f.faux.setResponses([fauxAssistantMessage('Hello there.')]);
    const session = await f.open();
    const events: SessionEvent['type'][] = [];
    session.onEvent((e) => events.push(e.type));
    await session.submit('  Say   hello\nplease ', { messageKey: 'k1' });
    await session.waitForIdle();
    const records = f.records(session.id);
    assert.deepEqual(types(records), ['agent', 'turn_begin', 'message:user', 'message:assistant', 'usage', 'turn_end']);
    const user = records[2] as MessageRecord;
    assert.equal(user.id, userMessageId(session.id, 'k1'));
    const content = user.message.content as Array<{ type: string; text: string }>;
    assert.match(content[0]!.text, /Always answer in English/);
    assert.equal(content.at(-1)!.text, '  Say   hello\nplease ', 'the user text is the last block');
    const turnBegin = records[1] as { model: { provider: string; id: string } };
    assert.deepEqual(turnBegin.model, { provider: 'faux', id: 'faux-1', thinking: 'off' });
    const state = f.store.get(session.id);
    assert.equal(state.status, 'idle');
    assert.equal(state.turnCount, 1);
    assert.equal(state.title, 'Say hello please');
    assert.ok(state.usage.output > 0);
    assert.deepEqual(
      events.filter((e) => e !== 'text-delta' && e !== 'message' && e !== 'prompt'),
      ['turn-start', 'status', 'turn-end', 'status', 'idle'],
    );
  } finally {
    await f.cleanup();
  }
});

test('resending with the same message key is a no-op, also after reopening', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('one')]);
    const session = await f.open();
    await session.submit('hi', { messageKey: 'same' });
    await session.waitForIdle();
    const again = await session.submit('hi', { messageKey: 'same' });
    assert.equal(again.state, 'completed');
    await session.close();
    const reopened = await f.open({}, session.id);
    assert.equal((await reopened.submit('hi', { messageKey: 'same' })).state, 'completed');
    assert.equal(f.records(session.id).filter((r) => r.t === 'turn_begin').length, 1);
  } finally {
    await f.cleanup();
  }
});

test('tool calls run through the kernel and are persisted with tool records and results', async () => {
  const f = await sessionFixture({ 'src/a.txt': 'alpha\nbeta\n' });
  try {
    f.faux.setResponses([
      fauxAssistantMessage([fauxText('Reading.'), fauxToolCall('read_file', { path: 'src/a.txt' }, { id: 'c1' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('It says alpha and beta.'),
    ]);
    const session = await f.open();
    await session.submit('what is in a.txt?');
    await session.waitForIdle();
    const records = f.records(session.id);
    assert.deepEqual(types(records), [
      'agent',
      'turn_begin',
      'message:user',
      'message:assistant',
      'usage',
      'tool',
      'tool',
      'message:toolResult',
      'message:assistant',
      'usage',
      'turn_end',
    ]);
    const result = records.find((r) => r.t === 'message' && (r as MessageRecord).message.role === 'toolResult') as MessageRecord;
    assert.match(JSON.stringify(result.message.content), /1\\talpha/);
  } finally {
    await f.cleanup();
  }
});

test('writes ask for approval, record before/after blobs and a file_change; a denial leaves the file alone', async () => {
  const f = await sessionFixture({ 'notes.md': 'old\n' });
  try {
    f.faux.setResponses([
      fauxAssistantMessage(fauxToolCall('read_file', { path: 'notes.md' }, { id: 'r1' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage(fauxToolCall('write_file', { path: 'notes.md', content: 'new\n' }, { id: 'w1' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('Denied, fine.'),
      fauxAssistantMessage(
        [
          fauxToolCall('edit_file', { path: 'notes.md', old_text: 'old', new_text: 'newer' }, { id: 'e1' }),
          fauxToolCall('write_file', { path: 'dir/created.txt', content: 'x' }, { id: 'w2' }),
        ],
        { stopReason: 'toolUse' },
      ),
      fauxAssistantMessage('Done.'),
    ]);
    const session = await f.open();
    f.decide = 'deny';
    await session.submit('overwrite notes');
    await session.waitForIdle();
    assert.equal(fs.readFileSync(path.join(f.workspace, 'notes.md'), 'utf8'), 'old\n');
    assert.match(JSON.stringify(f.records(session.id)), /The user denied this change/);
    f.decide = 'allow-session';
    await session.submit('edit notes and create a file');
    await session.waitForIdle();
    assert.equal(fs.readFileSync(path.join(f.workspace, 'notes.md'), 'utf8'), 'newer\n');
    assert.equal(fs.readFileSync(path.join(f.workspace, 'dir/created.txt'), 'utf8'), 'x');
    assert.equal(f.approvals.length, 2, 'allowed for the session after the first yes');
    const changes = f.records(session.id).filter((r) => r.t === 'file_change') as Array<{
      path: string;
      before: string | null;
      after: string | null;
      turn: number;
    }>;
    assert.deepEqual(
      changes.map((c) => [c.path, c.turn, c.before === null]),
      [
        ['notes.md', 2, false],
        ['dir/created.txt', 2, true],
      ],
    );
    const blobs = path.join(f.store.locate(session.id), 'blobs');
    assert.equal(fs.readFileSync(path.join(blobs, changes[0]!.before!.slice(0, 2), changes[0]!.before!), 'utf8'), 'old\n');
    assert.equal(fs.readFileSync(path.join(blobs, changes[0]!.after!.slice(0, 2), changes[0]!.after!), 'utf8'), 'newer\n');
  } finally {
    await f.cleanup();
  }
});

test('queued prompts are persisted, run in order, and can be cancelled; a steered prompt joins the running turn', async () => {
  const f = await sessionFixture();
  try {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    f.faux.setResponses([
      async () => (await gate, fauxAssistantMessage('first done')),
      fauxAssistantMessage('steered answer'),
      fauxAssistantMessage('third done'),
    ]);
    const session = await f.open();
    await session.submit('first');
    const second = await session.submit('second (to cancel)');
    await session.submit('third');
    assert.equal(second.state, 'pending');
    assert.deepEqual(
      readState(path.join(f.store.locate(session.id), 'state.json')).queue.map((q) => q.text),
      ['second (to cancel)', 'third'],
    );
    await session.cancel(second.promptId);
    const steered = await session.submit('also consider this', { steerIfActive: true });
    assert.equal(steered.state, 'steered');
    release();
    await session.waitForIdle();
    const users = f
      .records(session.id)
      .filter((r) => r.t === 'message' && (r as MessageRecord).message.role === 'user')
      .map((r) => JSON.stringify((r as MessageRecord).message.content));
    assert.equal(users.length, 3);
    assert.match(users[1]!, /also consider this/);
    assert.match(users[2]!, /third/);
    assert.ok(!users.some((u) => u.includes('to cancel')));
    assert.deepEqual(f.store.get(session.id).queue, []);
    assert.equal(f.store.get(session.id).turnCount, 2);
  } finally {
    await f.cleanup();
  }
});

test('cancel during a running command ends the turn cancelled, and the next turn has a valid history', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([
      fauxAssistantMessage(fauxToolCall('bash', { command: 'sleep 30' }, { id: 'b1' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('never reached'),
      (context) => {
        const calls = context.messages.flatMap((m) =>
          m.role === 'assistant' ? m.content.filter((c) => c.type === 'toolCall').map((c) => (c as { id: string }).id) : [],
        );
        const results = new Set(context.messages.filter((m) => m.role === 'toolResult').map((m) => m.toolCallId));
        return fauxAssistantMessage(calls.every((c) => results.has(c)) ? 'history is valid' : 'history is broken');
      },
    ]);
    const session = await f.open();
    session.onEvent((e) => {
      if (e.type === 'tool-start') setTimeout(() => void session.cancel(), 200);
    });
    const started = Date.now();
    await session.submit('run a long command');
    await session.waitForIdle();
    assert.ok(Date.now() - started < 10_000, 'the command was killed');
    assert.equal(f.store.get(session.id).status, 'aborted');
    const ends = f.records(session.id).filter((r) => r.t === 'turn_end') as Array<{ outcome: string }>;
    assert.equal(ends.at(-1)!.outcome, 'cancelled');
    await session.submit('and now?');
    await session.waitForIdle();
    assert.match(JSON.stringify(conversation(f.records(session.id)).at(-3)), /history is valid/);
    assert.equal(f.store.get(session.id).status, 'idle');
  } finally {
    await f.cleanup();
  }
});

test('a model error ends the turn failed with the message; status error; the next turn works', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('', { stopReason: 'error', errorMessage: '429 rate limited, try later' }), fauxAssistantMessage('fine now')]);
    const session = await f.open();
    let ended: SessionEvent | undefined;
    session.onEvent((e) => {
      if (e.type === 'turn-end') ended = e;
    });
    await session.submit('hi');
    await session.waitForIdle();
    assert.equal(ended?.type === 'turn-end' && ended.outcome, 'failed');
    assert.match(ended?.type === 'turn-end' ? (ended.error ?? '') : '', /429 rate limited/);
    assert.equal(f.store.get(session.id).status, 'error');
    assert.match(f.store.get(session.id).error?.message ?? '', /429/);
    await session.submit('again');
    await session.waitForIdle();
    assert.equal(f.store.get(session.id).status, 'idle');
  } finally {
    await f.cleanup();
  }
});

test('paths outside the workspace, symlinks out of it, and an untrusted workspace are refused', async () => {
  const f = await sessionFixture({ 'inside.txt': 'ok' });
  try {
    fs.writeFileSync(path.join(f.root, 'secret.txt'), 'secret');
    fs.symlinkSync(path.join(f.root, 'secret.txt'), path.join(f.workspace, 'link.txt'));
    f.faux.setResponses([
      fauxAssistantMessage(
        [
          fauxToolCall('read_file', { path: '../secret.txt' }, { id: 'r1' }),
          fauxToolCall('read_file', { path: path.join(f.root, 'secret.txt') }, { id: 'r2' }),
          fauxToolCall('read_file', { path: 'link.txt' }, { id: 'r3' }),
        ],
        { stopReason: 'toolUse' },
      ),
      fauxAssistantMessage('ok'),
      fauxAssistantMessage(
        [fauxToolCall('write_file', { path: 'new.txt', content: 'x' }, { id: 'w' }), fauxToolCall('bash', { command: 'touch ran.txt' }, { id: 'b' })],
        { stopReason: 'toolUse' },
      ),
      fauxAssistantMessage('ok'),
    ]);
    const session = await f.open();
    await session.submit('read secrets');
    await session.waitForIdle();
    const results = f
      .records(session.id)
      .filter((r) => r.t === 'message' && (r as MessageRecord).message.role === 'toolResult')
      .map((r) => JSON.stringify((r as MessageRecord).message));
    assert.equal(results.length, 3);
    for (const r of results) {
      assert.match(r, /outside the workspace/);
      assert.doesNotMatch(r, /"text":"[^"]*secret\\n?"/);
    }
    await session.close();
    const untrusted = await f.open({ trusted: false }, session.id);
    await untrusted.submit('write and run');
    await untrusted.waitForIdle();
    assert.equal(fs.existsSync(path.join(f.workspace, 'new.txt')), false);
    assert.equal(fs.existsSync(path.join(f.workspace, 'ran.txt')), false);
    assert.match(JSON.stringify(f.records(session.id)), /not trusted/);
    // Trust granted while the session is open applies to the next tool call.
    let trusted = false;
    await untrusted.close();
    const later = await f.open({ trusted: () => trusted }, session.id);
    trusted = true;
    f.faux.setResponses([
      fauxAssistantMessage([fauxToolCall('write_file', { path: 'new.txt', content: 'x' }, { id: 'w2' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('ok'),
    ]);
    await later.submit('write now');
    await later.waitForIdle();
    assert.equal(fs.readFileSync(path.join(f.workspace, 'new.txt'), 'utf8'), 'x');
  } finally {
    await f.cleanup();
  }
});

test('the UserPromptSubmit hook can block (nothing persisted) or add context before the reminders', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('ok')]);
    const hook = `input=$(cat); if echo "$input" | grep -q forbidden; then echo "no forbidden words" >&2; exit 2; fi; echo "hook context for: $(echo "$input" | head -c 20)"`;
    const session = await f.open({ promptHook: hook });
    const blocked = await new Promise<string>((resolve) => {
      session.onEvent((e) => {
        if (e.type === 'prompt' && e.prompt.state === 'blocked') resolve(e.prompt.reason ?? '');
      });
      void session.submit('a forbidden prompt');
    });
    await session.waitForIdle();
    assert.equal(blocked, 'no forbidden words');
    assert.deepEqual(types(f.records(session.id)), ['agent']);
    await session.submit('a fine prompt');
    await session.waitForIdle();
    const user = f.records(session.id).find((r) => r.t === 'message') as MessageRecord;
    const blocks = user.message.content as Array<{ text: string }>;
    assert.match(blocks[0]!.text, /hook context for: \{"prompt":"a fine/);
    assert.equal(blocks.at(-1)!.text, 'a fine prompt');
  } finally {
    await f.cleanup();
  }
});

test('after a crash: the open turn ends interrupted, dangling tool calls get results, queued prompts come back paused', async () => {
  const f = await sessionFixture();
  try {
    const state = await f.store.create({ workspaceDir: f.workspace });
    const writer = await f.store.openWriter(state.id);
    await writer.beginTurn('p1', null);
    await writer.appendMessage({ role: 'user', content: 'do it', timestamp: 1 });
    await writer.appendMessage(fauxAssistantMessage(fauxToolCall('bash', { command: 'make' }, { id: 'dangling' }), { stopReason: 'toolUse' }));
    await writer.close();
    await f.store.update(state.id, (s) => ({ ...s, queue: [{ promptId: 'q1', text: 'queued before the crash', messageKey: 'q1', queuedAt: 1 }] }));
    f.faux.setResponses([fauxAssistantMessage('resumed')]);
    const session = await f.open({}, state.id);
    const records = f.records(state.id);
    assert.deepEqual(
      (records.filter((r) => r.t === 'turn_end') as Array<{ outcome: string }>).map((r) => r.outcome),
      ['interrupted'],
    );
    assert.match(JSON.stringify(records.filter((r) => r.t === 'message').at(-1)), /did not finish before Braid stopped/);
    assert.equal(session.isPaused, true);
    assert.equal(f.store.get(state.id).paused?.reason, 'window-closed');
    assert.deepEqual(
      session.queued.map((q) => q.text),
      ['queued before the crash'],
    );
    assert.equal(f.faux.state.callCount, 0, 'nothing ran on its own');
    await session.resume();
    await session.waitForIdle();
    assert.equal(f.faux.state.callCount, 1);
    assert.equal(f.store.get(state.id).turnCount, 2);
  } finally {
    await f.cleanup();
  }
});

test('a side question sees the history cut to text, runs no tool, and leaves the history alone: only its usage is recorded', async () => {
  const f = await sessionFixture({ 'x.txt': 'x' });
  try {
    let seen: Array<{ role: string; content: unknown }> = [];
    f.faux.setResponses([
      fauxAssistantMessage([fauxText('Let me look.'), fauxToolCall('read_file', { path: 'x.txt' }, { id: 'r' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('It contains x.'),
      (context) => {
        seen = context.messages as typeof seen;
        return fauxAssistantMessage([fauxText('It is about x.'), fauxToolCall('bash', { command: 'rm -rf /' }, { id: 'never' })], { stopReason: 'toolUse' });
      },
    ]);
    const session = await f.open();
    await session.submit('what is in x.txt?');
    await session.waitForIdle();
    const before = f.records(session.id).length;
    const changedAt = f.store.get(session.id).updatedAt;
    await new Promise((resolve) => setTimeout(resolve, 20)); // a side question later than the turn's last record
    const events: string[] = [];
    session.onEvent((e) => events.push(e.type));
    const answer = await session.ask('btw, what was this about?');
    assert.deepEqual(events, ['status'], "the views are told the session's usage changed");
    assert.equal(answer.text, 'It is about x.');
    assert.deepEqual(
      seen.map((m) => m.role),
      ['user', 'assistant', 'assistant', 'user'],
    );
    assert.doesNotMatch(JSON.stringify(seen), /toolCall|toolResult/);
    assert.match(JSON.stringify(seen.at(-1)), /btw, what was this about/);
    const added = f.records(session.id).slice(before);
    assert.deepEqual(
      added.map((r) => [r.t, (r as { purpose?: string }).purpose]),
      [['usage', 'side-question']],
      "only the call's usage is recorded",
    );
    assert.equal(f.store.history(session.id).messages.length, 4, 'the conversation in the log is unchanged');
    assert.equal(f.store.index.sessionUsage(session.id).own.calls, 3, 'the side question counts as a call of the session');
    assert.equal(session.messages.length, 4, 'the history is unchanged');
    assert.equal(f.approvals.length, 0, 'the tool call was never executed');
    assert.equal(f.store.get(session.id).updatedAt, changedAt, 'a side question is no change of the session: its last-change time stays');
    assert.equal(f.store.index.get(session.id)?.updatedAt, changedAt, 'nor in the index');

    // Kept as a fork: kind peek, the whole history, then the boundary note, the question and the answer.
    const peek = await keepSideQuestion(f.store, session.id, 'btw, what was this about?', answer.message);
    assert.equal(peek.kind, 'peek');
    assert.equal(peek.title, 'Side: btw, what was this about?');
    const kept = f.store.history(peek.id).messages;
    assert.equal(kept.length, 6);
    assert.match(JSON.stringify(kept[4]!.message), /Side conversation boundary\. Everything before this boundary is inherited history/);
    assert.equal(f.store.get(session.id).turnCount, 1, 'the parent is unchanged');
    const peekUsage = f.store.index.sessionUsage(peek.id);
    assert.deepEqual([peekUsage.own.calls, peekUsage.inherited.calls], [0, 3], "the peek inherits the side question's call; it is counted under the parent");
    assert.equal(f.store.index.usageReport().total.calls, 3);
  } finally {
    await f.cleanup();
  }
});
