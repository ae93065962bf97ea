import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { PromptInfo } from '../../../src/core/session/events';
import type { TurnEndRecord } from '../../../src/core/wire/records';
import { fauxAssistantMessage, sessionFixture } from '../../support/session';

// A stop (the Stop button, Ctrl-C, SIGTERM in the CLI) that comes before the kernel runs is not
// lost: while the prompt hook runs, the prompt ends cancelled and no turn begins; once the turn
// has begun (git context, reminders), the run is stopped as soon as it starts.

test('Stop while the prompt hook runs: the prompt ends cancelled, no turn begins, the model is not called, git is not asked', async () => {
  const f = await sessionFixture();
  try {
    execFileSync('git', ['init', '-q', f.workspace]);
    const mark = path.join(f.root, 'hook-started');
    f.faux.setResponses([fauxAssistantMessage('should not be asked')]);
    const session = await f.open({ promptHook: `cat >/dev/null; touch "${mark}"; sleep 0.5`, gitContext: true });
    const states: PromptInfo['state'][] = [];
    session.onEvent((e) => e.type === 'prompt' && states.push(e.prompt.state));
    await session.submit('stop me early');
    for (let i = 0; i < 400 && !fs.existsSync(mark); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.ok(fs.existsSync(mark), 'the hook ran');
    await session.cancel();
    await session.waitForIdle();
    assert.equal(states.at(-1), 'cancelled');
    assert.deepEqual(
      f.records(session.id).map((r) => r.t),
      ['agent'],
    );
    assert.equal(f.faux.state.callCount, 0);
    const facts = fs.readdirSync(path.join(f.root, 'store'), { recursive: true }).map(String);
    assert.deepEqual(
      facts.filter((name) => name.endsWith('git-facts.json')),
      [],
      'a prompt stopped before its turn does not read the repository',
    );
  } finally {
    await f.cleanup();
  }
});

test('Stop after the turn began and before the model runs ends the turn cancelled', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('a full answer')]);
    const session = await f.open();
    session.onEvent((e) => {
      if (e.type === 'turn-start') void session.cancel(); // the kernel has not started yet
    });
    await session.submit('stop me at the start');
    await session.waitForIdle();
    const ends = f.records(session.id).filter((r) => r.t === 'turn_end') as TurnEndRecord[];
    assert.deepEqual(
      ends.map((e) => e.outcome),
      ['cancelled'],
    );
    assert.equal(f.store.get(session.id).status, 'aborted');
  } finally {
    await f.cleanup();
  }
});
