import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gitBranchName } from '../../../src/core/import/gitBranchName';

// An imported turn keeps the branch its source names only when git would take it as a branch's
// name: the text is another tool's, and it is shown in lists and filtered on.
test('branch names git takes are kept as they are', () => {
  for (const name of ['main', 'feature/search-v2', 'fix_123', 'release-1.2', 'user@host', 'ünïcode']) assert.equal(gitBranchName(name), name);
});

test('anything git would refuse, or no text at all, is no branch', () => {
  const refused = [
    '',
    ' ',
    'two words',
    '[trimmed for fixture]',
    'a..b',
    '-flag',
    '/lead',
    'trail/',
    'end.',
    'x.lock',
    'a//b',
    'a/.hidden',
    'a@{1}',
    '@',
    'tab\there',
    'nl\nx',
    'del\u007f',
    'c:d',
    'q?',
    'star*',
    'a~1',
    'b^2',
    'back\\slash',
    'x'.repeat(201),
  ];
  for (const name of refused) assert.equal(gitBranchName(name), undefined, JSON.stringify(name));
  for (const value of [undefined, null, 42, ['main'], { branch: 'main' }]) assert.equal(gitBranchName(value), undefined);
});
