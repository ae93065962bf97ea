// After a stopped or failed turn the prompts queued behind it wait for the user (Resume or
// Discard) instead of running on their own; state.json says why, so a window or `braid exec`
// opening the session later tells it too.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readState } from '../../../src/core/format/sessionState';
import type { MessageRecord } from '../../../src/core/wire/records';
import { fauxAssistantMessage, sessionFixture, type SessionFixture } from '../../support/session';

/** The texts of the user messages in the log, in order. */
function userTexts(f: SessionFixture, id: string): string[] {
  return f
    .records(id)
    .filter((r) => r.t === 'message' && (r as MessageRecord).message.role === 'user')
    .map((r) => JSON.stringify((r as MessageRecord).message.content));
}

/** A first answer that waits for `release`, so prompts can be queued behind it. */
function gated(answer: () => ReturnType<typeof fauxAssistantMessage>): {
  release: () => void;
  response: () => Promise<ReturnType<typeof fauxAssistantMessage>>;
} {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { release, response: async () => (await gate, answer()) };
}

test('a failed turn pauses the queue behind it: nothing more runs until Resume, and state.json says why', async () => {
  const f = await sessionFixture();
  try {
    const first = gated(() => fauxAssistantMessage('', { stopReason: 'error', errorMessage: '500 upstream down' }));
    f.faux.setResponses([first.response, fauxAssistantMessage('second done')]);
    const session = await f.open();
    await session.submit('first');
    await session.submit('second, written for a first that worked');
    first.release();
    await session.waitForIdle();
    assert.equal(session.isPaused, true);
    assert.equal(session.pauseReason, 'failed');
    assert.deepEqual(
      session.queued.map((q) => q.text),
      ['second, written for a first that worked'],
    );
    const state = readState(path.join(f.store.locate(session.id), 'state.json'));
    assert.deepEqual([state.paused, state.queue.length], [{ reason: 'failed' }, 1]);
    assert.equal(userTexts(f, session.id).length, 1, 'the queued prompt did not run');
    await session.resume();
    await session.waitForIdle();
    assert.equal(userTexts(f, session.id).length, 2);
    assert.deepEqual([f.store.get(session.id).paused, f.store.get(session.id).queue], [null, []]);
  } finally {
    await f.cleanup();
  }
});

test('Stop pauses the queue behind the stopped turn; Discard drops every waiting prompt', async () => {
  const f = await sessionFixture();
  try {
    const first = gated(() => fauxAssistantMessage('too late'));
    f.faux.setResponses([first.response, fauxAssistantMessage('never')]);
    const session = await f.open();
    const cancelled: string[] = [];
    session.onEvent((e) => {
      if (e.type === 'prompt' && e.prompt.state === 'cancelled') cancelled.push(e.prompt.text);
    });
    await session.submit('first');
    await session.submit('second');
    await session.submit('third');
    await session.cancel(); // the user's Stop
    first.release();
    await session.waitForIdle();
    assert.equal(session.pauseReason, 'stopped');
    assert.deepEqual(
      session.queued.map((q) => q.text),
      ['second', 'third'],
    );
    await session.discardQueue();
    await session.waitForIdle();
    assert.deepEqual(session.queued, []);
    assert.equal(session.isPaused, false);
    assert.deepEqual(cancelled, ['first', 'second', 'third']);
    assert.deepEqual([f.store.get(session.id).paused, f.store.get(session.id).queue], [null, []]);
    assert.equal(userTexts(f, session.id).length, 1, 'only the stopped prompt was written');
    // The queue runs again: a new prompt is not held behind the discarded ones.
    f.faux.setResponses([fauxAssistantMessage('fresh')]);
    await session.submit('fresh start');
    await session.waitForIdle();
    assert.equal(userTexts(f, session.id).length, 2);
  } finally {
    await f.cleanup();
  }
});

test('a turn that completes runs the next queued prompt as before; a failure with nothing queued pauses nothing', async () => {
  const f = await sessionFixture();
  try {
    const first = gated(() => fauxAssistantMessage('first done'));
    f.faux.setResponses([first.response, fauxAssistantMessage('second done'), fauxAssistantMessage('', { stopReason: 'error', errorMessage: '500' })]);
    const session = await f.open();
    await session.submit('first');
    await session.submit('second');
    first.release();
    await session.waitForIdle();
    assert.equal(userTexts(f, session.id).length, 2);
    await session.submit('third fails alone');
    await session.waitForIdle();
    assert.equal(session.isPaused, false);
    assert.equal(f.store.get(session.id).paused, null);
  } finally {
    await f.cleanup();
  }
});

test('the last queued prompt cancelled from a paused queue leaves it unpaused', async () => {
  const f = await sessionFixture();
  try {
    const first = gated(() => fauxAssistantMessage('', { stopReason: 'error', errorMessage: '500' }));
    f.faux.setResponses([first.response]);
    const session = await f.open();
    await session.submit('first');
    const second = await session.submit('second');
    first.release();
    await session.waitForIdle();
    assert.equal(session.pauseReason, 'failed');
    await session.cancel(second.promptId);
    assert.equal(session.isPaused, false);
    assert.equal(f.store.get(session.id).paused, null);
  } finally {
    await f.cleanup();
  }
});
