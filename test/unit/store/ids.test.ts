import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSessionId, newMessageId, newSessionId, userMessageId } from '../../../src/core/ids';
import { isWorkspaceKey, normalizeWorkspacePath, workspaceKey, workspaceSlug } from '../../../src/core/workspace/workspaceKey';
import { createHash } from 'node:crypto';

test('session ids are ses_ + ULID; message ids strictly increase within a millisecond', () => {
  const id = newSessionId();
  assert.match(id, /^ses_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.ok(isSessionId(id));
  assert.ok(!isSessionId('ses_../../etc'));
  const now = Date.now();
  const ids = Array.from({ length: 1000 }, () => newMessageId(now));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, 'monotonic');
  assert.ok(ids.every((m) => /^msg_[0-9A-Z]{26}$/.test(m)));
});

test('user message ids are deterministic per session and message key', () => {
  const a = userMessageId('ses_1', 'key-1');
  assert.equal(a, `msg-user-v1-${createHash('sha256').update('ses_1:key-1').digest('hex')}`);
  assert.equal(userMessageId('ses_1', 'key-1'), a);
  assert.notEqual(userMessageId('ses_2', 'key-1'), a);
});

test('workspace keys are wd_<slug>_<12 hex of sha256(normalized path)>', () => {
  const hash = createHash('sha256').update('/home/ana/My Project').digest('hex').slice(0, 12);
  assert.equal(workspaceKey('/home/ana/My Project/'), `wd_my-project_${hash}`);
  assert.equal(workspaceKey('/home/ana/My Project'), workspaceKey('/home/ana/My Project///'));
  assert.ok(isWorkspaceKey(workspaceKey('/x')));
});

test('Windows-style paths normalize: backslashes, drive-letter case, trailing separators', () => {
  assert.equal(normalizeWorkspacePath('C:\\Users\\Ana\\Code\\'), 'c:/users/ana/code');
  assert.equal(workspaceKey('C:\\Users\\Ana\\Code'), workspaceKey('c:/users/ana/code/'));
  assert.notEqual(workspaceKey('/home/Ana'), workspaceKey('/home/ana'), 'POSIX paths keep their case');
});

test('slugs keep [a-z0-9-] of the last segment, at most 32 characters', () => {
  assert.equal(workspaceSlug('/srv/Über_Repo.v2'), 'ber-repo-v2');
  assert.equal(workspaceSlug('/'), 'root');
  assert.ok(workspaceSlug(`/x/${'a'.repeat(80)}`).length <= 32);
  assert.match(workspaceKey('/srv/日本語'), /^wd_root_[0-9a-f]{12}$/);
});
