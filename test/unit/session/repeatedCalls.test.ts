import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RepeatedCalls } from '../../../src/core/session/repeatedCalls';
import type { MessageRecord, TurnEndRecord } from '../../../src/core/wire/records';
import { fauxAssistantMessage, fauxToolCall, sessionFixture } from '../../support/session';

// The same tool call made again and again in one turn: a reminder with its result at the third
// time, and at the fifth the call does not run and the turn ends, saying why.

test('counted per turn, by tool and arguments whatever the order of their keys; limits that make no sense fall back', () => {
  const calls = new RepeatedCalls({ remindAt: 2, stopAt: 3 });
  assert.equal(calls.count('grep', { pattern: 'x', path: 'src' }).kind, 'run');
  assert.equal(calls.count('grep', { pattern: 'y', path: 'src' }).kind, 'run', 'other arguments are another call');
  assert.equal(calls.count('glob', { pattern: 'x', path: 'src' }).kind, 'run', 'another tool is another call');
  assert.equal(calls.count('grep', { path: 'src', pattern: 'x' }).kind, 'remind', 'the same arguments in another order');
  assert.equal(calls.count('grep', { pattern: 'x', path: 'src' }).kind, 'stop');
  calls.turnStarted();
  assert.equal(calls.count('grep', { pattern: 'x', path: 'src' }).kind, 'run', 'a new turn counts anew');
  const odd = new RepeatedCalls({ remindAt: 0, stopAt: Number.NaN });
  assert.deepEqual(
    [1, 2, 3, 4, 5].map(() => odd.count('bash', { command: 'ls' }).kind),
    ['run', 'run', 'remind', 'remind', 'stop'],
  );
});

test('in a session: the third same call gets a reminder, the fifth is not run and ends the turn with its reason; the next turn runs', async () => {
  const f = await sessionFixture({ 'notes.txt': 'hello\n' });
  try {
    const read = () => fauxAssistantMessage(fauxToolCall('read_file', { path: 'notes.txt' }), { stopReason: 'toolUse' });
    let calledAfter = false;
    f.faux.setResponses([
      read(),
      read(),
      read(),
      read(),
      read(),
      () => {
        calledAfter = true;
        return fauxAssistantMessage('never');
      },
    ]);
    const session = await f.open();
    await session.submit('What do the notes say?');
    await session.waitForIdle();
    assert.equal(calledAfter, false, 'the model was not called after the fifth');
    const records = f.records(session.id);
    const results = records
      .filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'toolResult')
      .map((r) => JSON.stringify(r.message.content));
    assert.equal(results.length, 5);
    assert.doesNotMatch(results[1]!, /same read_file call/);
    assert.match(results[2]!, /hello/);
    assert.match(results[2]!, /You have made this same read_file call 3 times in this turn/);
    assert.match(results[3]!, /4 times/);
    assert.doesNotMatch(results[4]!, /hello/, 'the fifth did not run');
    assert.match(results[4]!, /The turn was stopped: the model made the same read_file call 5 times/);
    const end = records.find((r): r is TurnEndRecord => r.t === 'turn_end')!;
    assert.equal(end.outcome, 'failed');
    assert.match(end.error ?? '', /same read_file call 5 times/);

    f.faux.setResponses([read(), fauxAssistantMessage('They say hello.')]);
    await session.submit('Try once more');
    await session.waitForIdle();
    const ends = f.records(session.id).filter((r): r is TurnEndRecord => r.t === 'turn_end');
    assert.equal(ends.at(-1)!.outcome, 'completed');
  } finally {
    await f.cleanup();
  }
});
