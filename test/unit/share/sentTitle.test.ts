import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sentTitle, type RedactLine } from '../../../src/core/share/push';

// A session's title as a push sends it (the manifest's, and what Push Sessions' details show):
// redacted by the same function as its log's lines, as a JSON line.

const hiding =
  (secret: string): RedactLine =>
  (line) =>
    line.includes(secret)
      ? { line: line.split(secret).join('[REDACTED]'), redactions: [{ kind: 'known-key', where: 'title', sample: '[REDACTED]' }] }
      : { line, redactions: [] };

test('a title holding a secret is sent redacted; one without is sent as it is, quotes and all', () => {
  assert.equal(sentTitle(hiding('hunter2'), 'Deploy with hunter2 today'), 'Deploy with [REDACTED] today');
  assert.equal(sentTitle(hiding('hunter2'), 'Fix "the" parser\\n'), 'Fix "the" parser\\n');
});

test('a title whose line the redaction drops is sent empty', () => {
  assert.equal(
    sentTitle(() => ({ line: null, redactions: [] }), 'anything'),
    '',
  );
});

test("a title ending in the start of a key, cut by the title's length, is sent without it; ordinary last words stay", () => {
  const none: RedactLine = (line) => ({ line, redactions: [] });
  assert.equal(sentTitle(none, 'Use this key sk-proj-Zq8vT3kLm9…'), 'Use this key [REDACTED:cut]…');
  assert.equal(sentTitle(none, 'token ghp_R8kq2WvZ7mXb'), 'token [REDACTED:cut]');
  assert.equal(sentTitle(none, 'Fix the parser for utf8…'), 'Fix the parser for utf8…', 'a short word');
  assert.equal(sentTitle(none, 'Refactor the authentication…'), 'Refactor the authentication…', 'letters only');
});
