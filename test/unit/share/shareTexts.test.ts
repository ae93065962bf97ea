import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PullReport, PulledSession } from '../../../src/core/share/pull';
import type { PushedSession } from '../../../src/core/share/push';
import {
  dryRunDetails,
  dryRunSummary,
  nothingToPush,
  pullOutcome,
  pushOutcome,
  redactionCounts,
  remoteInputMessage,
} from '../../../src/vscode/share/shareText';

// What Push Sessions and Pull Shared Sessions say in VS Code: the dry run's confirmation and its
// details document, and the notifications after a push or a pull.

const REMOTE = 'file:///srv/sessions.git';

function pushed(id: string, outcome: PushedSession['outcome'], more: Partial<PushedSession> = {}): PushedSession {
  return { id, title: `title of ${id}`, outcome, turns: 0, bytes: 0, droppedLines: 0, redactions: [], ...more };
}

const redaction = (kind: string, sample: string) => ({ kind, where: 'message', sample });

test("a dry run's confirmation counts only the sessions that would be sent, with their turns, bytes and redactions by kind", () => {
  const results = [
    pushed('ses_a', 'would-push', {
      turns: 2,
      bytes: 2048,
      redactions: [redaction('path', './a'), redaction('known-key', '[REDACTED:key]'), redaction('path', './b')],
    }),
    pushed('ses_b', 'would-push', { turns: 1, bytes: 1024, droppedLines: 1, redactions: [redaction('path', './c')] }),
    pushed('ses_c', 'up-to-date'),
    pushed('ses_d', 'failed', { reason: 'its state.json is broken' }),
  ];
  const summary = dryRunSummary(results, REMOTE);
  assert.deepEqual(
    summary.toSend.map((r) => r.id),
    ['ses_a', 'ses_b'],
  );
  assert.equal(summary.question, `Push 2 sessions to ${REMOTE}?`);
  assert.deepEqual(summary.detail.split('\n'), [
    '2 sessions would be sent: 3 turns, 3.0 KiB after redaction.',
    'Redacted: 3 path, 1 known-key.',
    '1 line that could not be read is left out.',
    '1 session is up to date there.',
    '1 session cannot be pushed (the Braid log says why).',
    'Nothing has been sent yet. Show Details lists every redaction.',
  ]);
});

test('a dry run with nothing redacted says so, in the singular for one session', () => {
  const summary = dryRunSummary([pushed('ses_a', 'would-push', { turns: 1, bytes: 10 })], REMOTE);
  assert.equal(summary.question, `Push 1 session to ${REMOTE}?`);
  assert.deepEqual(summary.detail.split('\n').slice(0, 2), ['1 session would be sent: 1 turn, 10 bytes after redaction.', 'Redacted: nothing.']);
});

test('redactions are counted by kind, the most frequent first, ties by name', () => {
  const results = [
    pushed('ses_a', 'would-push', { redactions: [redaction('url', 'x'), redaction('email', 'y'), redaction('path', 'z'), redaction('path', 'w')] }),
  ];
  assert.deepEqual(redactionCounts(results), [
    ['path', 2],
    ['email', 1],
    ['url', 1],
  ]);
});

test("the details document lists every redaction with its kind, place and sample, and each other session's outcome", () => {
  const text = dryRunDetails(
    [
      pushed('ses_a', 'would-push', {
        turns: 2,
        bytes: 100,
        redactions: [redaction('path', './src/a.ts'), { kind: 'known-key', where: 'tool result', sample: 'sk-…[key]' }],
      }),
      pushed('ses_b', 'would-push', { turns: 1, bytes: 5, droppedLines: 2 }),
      pushed('ses_c', 'up-to-date'),
      pushed('ses_d', 'failed', { reason: 'the remote refused it' }),
    ],
    REMOTE,
  );
  assert.deepEqual(text.split('\n'), [
    `Push to ${REMOTE}: what would be sent (nothing has been sent yet; titles as they are sent)`,
    '',
    'ses_a "title of ses_a": 2 turns, 100 bytes',
    '    redacted path in message: ./src/a.ts',
    '    redacted known-key in tool result: sk-…[key]',
    'ses_b "title of ses_b": 1 turn, 5 bytes; 2 unreadable lines left out',
    '    nothing redacted',
    'ses_c "title of ses_c": up to date',
    'ses_d "title of ses_d": cannot be pushed: the remote refused it',
    '',
  ]);
});

test("a push's notification counts the sessions pushed, up to date and failed", () => {
  assert.deepEqual(
    pushOutcome([pushed('a', 'pushed'), pushed('b', 'pushed'), pushed('c', 'pushed'), pushed('d', 'up-to-date'), pushed('e', 'up-to-date')], REMOTE),
    {
      text: `Pushed 3 sessions to ${REMOTE}; 2 up to date.`,
      failed: 0,
    },
  );
  assert.deepEqual(pushOutcome([pushed('a', 'pushed'), pushed('b', 'failed')], REMOTE), {
    text: `Pushed 1 session to ${REMOTE}; 1 failed — see the Braid log.`,
    failed: 1,
  });
});

test('a dry run that finds nothing to send says why', () => {
  assert.deepEqual(nothingToPush([pushed('a', 'up-to-date'), pushed('b', 'up-to-date')], REMOTE), {
    text: `Nothing to push to ${REMOTE}. 2 sessions are up to date there.`,
    failed: 0,
  });
  assert.deepEqual(nothingToPush([pushed('a', 'failed')], REMOTE), {
    text: `Nothing to push to ${REMOTE}. 1 session cannot be pushed (the Braid log says why).`,
    failed: 1,
  });
});

function pulledOf(outcome: PulledSession['outcome']): PulledSession {
  return { ref: 'refs/braid/m/s', id: 's', title: 't', author: 'ann', machineName: 'box', outcome, bytes: 0 };
}

test("a pull's notification counts new, updated, unchanged and refused sessions and those of other projects", () => {
  const report: PullReport = {
    sessions: [pulledOf('new'), pulledOf('new'), pulledOf('updated'), pulledOf('unchanged'), pulledOf('refused')],
    otherProjects: 3,
  };
  assert.deepEqual(pullOutcome(report, REMOTE), {
    text: `Pulled 2 new, 1 updated from ${REMOTE}; 1 unchanged; 3 sessions of other projects left there; 1 refused — see the Braid log.`,
    refused: 1,
    changed: 3,
  });
  assert.deepEqual(pullOutcome({ sessions: [], otherProjects: 0 }, REMOTE), { text: `Pulled 0 new, 0 updated from ${REMOTE}.`, refused: 0, changed: 0 });
});

test("the input box shows shareRemote's reason without the CLI's option name", () => {
  assert.equal(
    remoteInputMessage('--remote "nope": not a URL or path, and this repository has no git remote of that name.'),
    '"nope": not a URL or path, and this repository has no git remote of that name.',
  );
  assert.equal(remoteInputMessage('git is not on PATH'), 'git is not on PATH');
});
