import assert from 'node:assert/strict';
import fs from 'node:fs';
import { afterEach, test } from 'node:test';
import type { SessionEvent } from '../../../src/core/session/events';
import { readState } from '../../../src/core/format/sessionState';
import type { TurnEndRecord } from '../../../src/core/wire/records';
import { fauxAssistantMessage, sessionFixture } from '../../support/session';

// A session whose log write fails for good (BRAID_FAULT_LOG_ERRORS, src/core/fs/faults.ts: the
// process's log writes go wrong in the order listed, then work): the turn fails naming the cause,
// the session is marked with it (state.json, the Session, the index row), and the next turn that
// is written clears the mark.
afterEach(() => delete process.env.BRAID_FAULT_LOG_ERRORS);
const TURN = ['turn_begin', 'message', 'message', 'usage', 'turn_end'];

test('a log write that fails for good fails the turn, marks the session with its cause; the next turn written clears it', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('first'), fauxAssistantMessage('lost'), fauxAssistantMessage('back')]);
    const session = await f.open();
    await session.submit('one');
    await session.waitForIdle();
    const ends: Array<Extract<SessionEvent, { type: 'turn-end' }>> = [];
    session.onEvent((e) => {
      if (e.type === 'turn-end') ends.push(e);
    });

    // turn_begin is written, the user's message meets a full disk.
    process.env.BRAID_FAULT_LOG_ERRORS = 'ok,ENOSPC';
    await session.submit('two');
    await session.waitForIdle();
    delete process.env.BRAID_FAULT_LOG_ERRORS;
    assert.equal(ends.length, 1);
    assert.equal(ends[0]!.outcome, 'failed');
    assert.equal(ends[0]!.unsaved, true, 'its end is told as not saved');
    assert.match(ends[0]!.error ?? '', /^the turn was not saved: the session's log could not be written \(the disk is full: .*ENOSPC.*\)$/);
    assert.deepEqual([session.state.status, session.state.writeFailure?.kind], ['error', 'disk-full']);
    const stateFile = f.store.layout.stateFile(f.store.locate(session.id));
    // Only the log's writes fail here: state.json is written with the mark.
    assert.equal(readState(stateFile).writeFailure?.kind, 'disk-full');
    assert.match(readState(stateFile).writeFailure?.message ?? '', /ENOSPC/);
    const row = f.store.index.get(session.id)!;
    assert.equal(row.status, 'error');
    assert.match(row.error ?? '', /^not saved \(disk-full\): .*ENOSPC/);

    // The disk has room again: the next turn ends the cut one `interrupted`, runs and clears the mark.
    await session.submit('three');
    await session.waitForIdle();
    assert.equal(ends.at(-1)!.outcome, 'completed');
    assert.equal(ends.at(-1)!.unsaved, undefined);
    assert.deepEqual([session.state.status, session.state.writeFailure], ['idle', undefined]);
    assert.equal(readState(stateFile).writeFailure, undefined);
    assert.equal(f.store.index.get(session.id)!.error, null);
    const turnEnds = f.records(session.id).filter((r): r is TurnEndRecord => r.t === 'turn_end');
    assert.deepEqual(
      turnEnds.map((r) => [r.turn, r.outcome]),
      [
        [1, 'completed'],
        [2, 'interrupted'],
        [3, 'completed'],
      ],
    );
    assert.match(turnEnds[1]!.error ?? '', /could not be written \(disk-full/);
    const log = fs
      .readFileSync(f.store.layout.agentLog(f.store.locate(session.id)), 'utf8')
      .split('\n')
      .filter(Boolean);
    assert.deepEqual(
      // A cache break the changed prompt may cause after the lost turn is beside the point here.
      log.map((line) => (JSON.parse(line) as { t: string }).t).filter((t) => t !== 'cache_break'),
      ['agent', ...TURN, 'turn_begin', 'turn_end', ...TURN],
      'every line whole: turn 2 has its begin and the interrupted end',
    );
  } finally {
    await f.cleanup();
  }
});

test('errors that pass do not fail the turn or mark the session', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('fine')]);
    const session = await f.open();
    process.env.BRAID_FAULT_LOG_ERRORS = 'EAGAIN,EINTR,ok,EBUSY,short,EAGAIN';
    await session.submit('one');
    await session.waitForIdle();
    assert.deepEqual([session.state.status, session.state.writeFailure], ['idle', undefined]);
    assert.deepEqual(
      f.records(session.id).map((r) => r.t),
      ['agent', 'turn_begin', 'message', 'message', 'usage', 'turn_end'],
    );
  } finally {
    await f.cleanup();
  }
});
