import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastMode, proposedPlan } from '../../../media/src/turnModes';
import type { TranscriptEntry } from '../../../src/protocol/frames';

const user = (text: string, mode?: 'ask' | 'plan' | 'auto-edit'): TranscriptEntry => ({
  kind: 'user',
  key: text,
  text,
  messageId: text,
  ...(mode ? { mode } : {}),
});
const answer = (text: string): TranscriptEntry => ({ kind: 'assistant', key: `a:${text}`, text, thinking: '' });

test('a finished Plan turn offers its last answer as the plan; any other turn, a running one or a prompt on its way offers none', () => {
  const planned = [user('fix it', 'ask'), answer('it is broken'), user('plan the fix', 'plan'), answer('Looking.'), answer('1. Edit a.ts\n2. Run tests')];
  assert.equal(proposedPlan(planned, false), '1. Edit a.ts\n2. Run tests');
  assert.equal(proposedPlan(planned, true), undefined, 'not while a turn runs');
  assert.equal(proposedPlan([...planned, user('go on')], false), undefined, 'a later prompt ends the offer');
  const pending = { kind: 'pending' };
  assert.equal(proposedPlan([...planned, pending], false), undefined);
  assert.equal(proposedPlan([user('plan', 'plan')], false), undefined, 'no answer, no plan');
  assert.equal(proposedPlan([user('ask', 'ask'), answer('an answer')], false), undefined);
});

test('a session shown again goes on in its newest prompt’s mode; Agent when it names none', () => {
  assert.equal(lastMode([user('a', 'plan'), answer('x'), user('b', 'ask'), answer('y')]), 'ask');
  assert.equal(lastMode([user('a', 'plan'), user('b')]), 'agent');
  assert.equal(lastMode([]), 'agent');
});
