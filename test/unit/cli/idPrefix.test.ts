import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../../src/cli/args';
import { MIN_SHOWN, PROMPT_IDS, resolveId, SESSION_IDS, shortForms } from '../../../src/cli/idPrefix';
import { ListedError } from '../../../src/cli/listedError';

// The one resolver of shortened ids (sessions and prompts), and the shortest forms `show` prints.
const sessions = ['ses_01M8QSAAAAAAAAAAAAAAAAAAAA', 'ses_01M8QSBBBBBBBBBBBBBBBBBBBB', 'ses_01M9ZZZZZZZZZZZZZZZZZZZZZZ'];
const hex = (start: string) => `msg-user-v1-${start}${'0'.repeat(64 - start.length)}`;
const prompts = [hex('3fa2b1c9'), hex('3fa2b1d1'), hex('9e01d44'), 'msg_01M8QSCCCCCCCCCCCCCCCCCCCC'];

const options = { notFound: () => new Error('not found'), describe: (id: string) => `candidate ${id}` };
const resolve = (typed: string, ids: readonly string[], kind = SESSION_IDS) => resolveId(typed, ids, kind, options);

test('a unique beginning names its id, with or without the prefix, in either case; a whole id is itself', () => {
  assert.equal(resolve('ses_01M9', sessions), sessions[2]);
  assert.equal(resolve('01M9', sessions), sessions[2]);
  assert.equal(resolve('01m8qsb', sessions), sessions[1]);
  assert.equal(resolve(sessions[0]!, sessions), sessions[0]);
  assert.equal(resolve('9e01', prompts, PROMPT_IDS), prompts[2]);
  assert.equal(resolve('msg-user-v1-9e01', prompts, PROMPT_IDS), prompts[2]);
  assert.equal(resolve('3FA2B1D', prompts, PROMPT_IDS), prompts[1]);
  assert.equal(resolve('01M8QSC', prompts, PROMPT_IDS), prompts[3]);
  assert.equal(resolve('msg_01M8', prompts, PROMPT_IDS), prompts[3]);
});

test('an ambiguous beginning lists every candidate; none is an error; too short is bad usage', () => {
  assert.throws(
    () => resolve('01M8QS', sessions),
    (err: unknown) => {
      assert.ok(err instanceof ListedError);
      assert.equal(err.message, '"01M8QS" begins or ends 2 session ids; type more of the one you mean:');
      assert.deepEqual(err.details, [`candidate ${sessions[0]}`, `candidate ${sessions[1]}`]);
      return true;
    },
  );
  assert.throws(
    () => resolve('3fa2b1', prompts, PROMPT_IDS),
    (err: unknown) => err instanceof ListedError && err.details.length === 2,
  );
  assert.throws(() => resolve('01MX', sessions), /not found/);
  // The prefix typed must be the id's own kind.
  assert.throws(() => resolve('msg_9e01', prompts, PROMPT_IDS), /not found/);
  assert.throws(
    () => resolve('01M', sessions),
    (err: unknown) => err instanceof UsageError && /too short for a session id; give at least 4 characters/.test(err.message),
  );
  assert.throws(() => resolve('ses_', sessions), UsageError);
});

test('shortest forms are unique, at least 7 characters (like git), longer only where ids share a beginning, and resolve back', () => {
  const forms = shortForms(prompts, PROMPT_IDS);
  assert.equal(forms.get(prompts[2]!), '9e01d44');
  assert.equal(forms.get(prompts[0]!), '3fa2b1c');
  assert.equal(forms.get(prompts[1]!), '3fa2b1d');
  const close = [hex('abcdef0123'), hex('abcdef0124')];
  const long = shortForms(close, PROMPT_IDS);
  assert.deepEqual([...long.values()], ['abcdef0123', 'abcdef0124']);
  for (const ids of [prompts, close]) {
    const shown = shortForms(ids, PROMPT_IDS);
    assert.equal(new Set(shown.values()).size, ids.length);
    for (const id of ids) {
      assert.ok(shown.get(id)!.length >= Math.min(MIN_SHOWN, id.length));
      assert.equal(resolve(shown.get(id)!, ids, PROMPT_IDS), id);
    }
  }
});
