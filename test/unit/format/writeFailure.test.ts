import assert from 'node:assert/strict';
import { test } from 'node:test';
import { faultError } from '../../../src/core/fs/faults';
import { readWriteFailure, writeFailureKind, writeFailureNote, writeFailureOfNote } from '../../../src/core/format/writeFailure';
import { SessionNotFoundError } from '../../../src/core/store/errors';
import { LogWriteFailedError, writeFailureOf } from '../../../src/core/store/writeFailure';
import { LeaseLostError } from '../../../src/core/store/writerLease';

test('a lasting write error is classified by its errno code', () => {
  const kinds = ['ENOSPC', 'EDQUOT', 'EACCES', 'EPERM', 'EROFS', 'ENOENT', 'EIO', 'EAGAIN'].map((code) => [code, writeFailureKind(faultError(code))]);
  assert.deepEqual(kinds, [
    ['ENOSPC', 'disk-full'],
    ['EDQUOT', 'disk-full'],
    ['EACCES', 'permission'],
    ['EPERM', 'permission'],
    ['EROFS', 'permission'],
    ['ENOENT', 'folder-removed'],
    ['EIO', 'io'],
    ['EAGAIN', 'io'], // past its retries, a passing error lasted
  ]);
  assert.equal(writeFailureKind(new Error('no code')), 'io');
  assert.equal(writeFailureKind(undefined), 'io');
});

test('a removed folder (the fence says so) is folder-removed; a lost lease is no write failure; a failure is not wrapped twice', () => {
  assert.equal(writeFailureOf(new SessionNotFoundError('the folder of session x was removed'))?.kind, 'folder-removed');
  assert.equal(writeFailureOf(new LeaseLostError()), undefined);
  const failed = new LogWriteFailedError({ kind: 'permission', message: 'EACCES', at: 1 }, { cause: faultError('EACCES') });
  assert.equal(writeFailureOf(failed), failed.failure);
  assert.match(failed.message, /^the turn was not saved: .*\(permission denied: EACCES\)$/);
});

test('the index row note reads back; other errors and damaged marks are no mark', () => {
  const note = writeFailureNote({ kind: 'disk-full', message: 'cannot write wire.jsonl: no space left on device (ENOSPC)' });
  assert.deepEqual(writeFailureOfNote(note), { kind: 'disk-full', message: 'cannot write wire.jsonl: no space left on device (ENOSPC)' });
  assert.equal(writeFailureOfNote('429 rate limited'), undefined);
  assert.equal(writeFailureOfNote('not saved (sunspots): x'), undefined);
  assert.equal(writeFailureOfNote(null), undefined);
  assert.deepEqual(readWriteFailure({ kind: 'io', message: 'EIO', at: 5 }), { kind: 'io', message: 'EIO', at: 5 });
  assert.equal(readWriteFailure({ kind: 'io' }), undefined);
  assert.equal(readWriteFailure('disk-full'), undefined);
});
