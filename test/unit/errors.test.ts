import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import { errorMessage } from '../../src/core/errors';

test("errorMessage is an Error's message, also one from another realm or an error-like object", () => {
  assert.equal(errorMessage(new TypeError('bad type')), 'bad type');
  const foreign: unknown = vm.runInNewContext('new Error("from another realm")');
  assert.equal(foreign instanceof Error, false, 'the test needs an error this realm does not know');
  assert.equal(errorMessage(foreign), 'from another realm');
  assert.equal(errorMessage({ message: 'posted by a worker', code: 'X' }), 'posted by a worker');
});

test('errorMessage shows any other thrown value as text and never throws', () => {
  assert.equal(errorMessage('a string'), 'a string');
  assert.equal(errorMessage(42), '42');
  assert.equal(errorMessage(undefined), 'undefined');
  assert.equal(errorMessage(null), 'null');
  assert.equal(errorMessage({ message: 7 }), '[object Object]', 'a message that is not text is not taken');
  const bare: unknown = Object.create(null);
  assert.equal(typeof errorMessage(bare), 'string');
  assert.equal(
    errorMessage({
      toString: () => {
        throw new Error('no');
      },
    }),
    'an error that cannot be shown as text',
  );
});
