import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PushedSession } from '../../../src/core/share/push';
import type { SyncedIn, SyncReport } from '../../../src/core/share/sync';
import { forkText, nothingToSync, syncDryRunDetails, syncDryRunSummary, syncLogLines, syncOutcome } from '../../../src/vscode/share/syncText';

// What Sync Sessions says in VS Code: the dry run's confirmation (what would come in, what would be
// sent, the redactions by kind) and its details, the notification after the sync (each fork in a
// sentence of its own, the sessions left named), and the log's lines.

const REMOTE = 'file:///srv/sessions.git';

function pushed(id: string, outcome: PushedSession['outcome'], more: Partial<PushedSession> = {}): PushedSession {
  return { id, title: `title of ${id}`, outcome, turns: 0, bytes: 0, droppedLines: 0, redactions: [], ...more };
}

function came(id: string, outcome: SyncedIn['outcome'], more: Partial<SyncedIn> = {}): SyncedIn {
  return { ref: `refs/braid/m/${id}`, id, title: `title of ${id}`, machineName: 'laptop', outcome, bytes: 0, ...more };
}

const report = (pulled: SyncedIn[], pushedSessions: PushedSession[] = []): SyncReport => ({ pulled, pushed: pushedSessions, otherProjects: 0 });
const redaction = (kind: string, sample: string) => ({ kind, where: 'message', sample });

test("a sync's dry run says what would come in and what would be sent, with the redactions by kind", () => {
  const dry = report(
    [came('ses_a', 'new'), came('ses_b', 'updated'), came('ses_c', 'unchanged'), came('ses_d', 'refused', { reason: 'bad ref' })],
    [
      pushed('ses_e', 'would-push', {
        turns: 2,
        bytes: 2048,
        redactions: [redaction('path', './a'), redaction('known-key', '[REDACTED:key]'), redaction('path', './b')],
      }),
      pushed('ses_f', 'up-to-date'),
    ],
  );
  const summary = syncDryRunSummary(dry, REMOTE);
  assert.equal(summary.question, `Sync with ${REMOTE}?`);
  assert.equal(summary.changes, 3);
  assert.deepEqual(summary.detail.split('\n'), [
    'Would come in: 1 new, 1 updated.',
    'A session continued here too since the last sync becomes a fork that keeps your turns.',
    '1 session of the remote cannot be taken in (the Braid log says why).',
    'Would be sent: 1 session, 2 turns, 2.0 KiB after redaction.',
    'Redacted: 2 path, 1 known-key.',
    '1 session is up to date there.',
    'Nothing has changed yet. Show Details lists every redaction.',
  ]);
});

test('a dry run with only something to send says nothing comes in, and one with nothing to do has no changes', () => {
  const onlyOut = syncDryRunSummary(report([], [pushed('ses_a', 'would-push', { turns: 1, bytes: 10 })]), REMOTE);
  assert.deepEqual(onlyOut.detail.split('\n').slice(0, 3), [
    'Would come in: nothing.',
    'Would be sent: 1 session, 1 turn, 10 bytes after redaction.',
    'Redacted: nothing.',
  ]);
  const onlyIn = syncDryRunSummary(report([came('ses_a', 'new')], [pushed('ses_b', 'up-to-date')]), REMOTE);
  assert.equal(onlyIn.changes, 1);
  assert.ok(onlyIn.detail.includes('Would be sent: nothing.'));
  assert.ok(!onlyIn.detail.includes('Redacted'), 'no redaction line when nothing is sent');
  const none = report([came('ses_a', 'unchanged')], [pushed('ses_a', 'up-to-date')]);
  assert.equal(syncDryRunSummary(none, REMOTE).changes, 0);
  assert.deepEqual(nothingToSync(none, REMOTE), { text: `Nothing to sync with ${REMOTE}. 1 session is up to date there.`, failed: 0 });
  const refused = nothingToSync(report([came('ses_b', 'refused')], [pushed('ses_c', 'failed', { reason: 'x' })]), REMOTE);
  assert.equal(refused.failed, 2);
  assert.equal(
    refused.text,
    `Nothing to sync with ${REMOTE}. 1 session of the remote cannot be taken in (the Braid log says why). 1 session cannot be pushed (the Braid log says why).`,
  );
});

test('the details list what would come in, then every redaction of what would be sent', () => {
  const text = syncDryRunDetails(
    [came('ses_a', 'new'), came('ses_b', 'unchanged'), came('', 'refused', { ref: 'refs/braid/bad', reason: 'not a session id' })],
    [pushed('ses_e', 'would-push', { turns: 1, bytes: 5, redactions: [redaction('known-key', '[REDACTED:key]')] })],
    REMOTE,
  );
  const lines = text.split('\n');
  assert.deepEqual(lines.slice(0, 4), [
    `Sync with ${REMOTE}: what would come in (nothing has changed yet)`,
    '',
    'ses_a "title of ses_a" from laptop: new',
    'refs/braid/bad: cannot be taken in: not a session id',
  ]);
  assert.ok(lines.includes('ses_e "title of ses_e": 1 turn, 5 bytes'), text);
  assert.ok(lines.includes('    redacted known-key in message: [REDACTED:key]'), text);
  assert.ok(syncDryRunDetails([], [], REMOTE).split('\n').includes('nothing'));
});

test('the outcome counts what came in and went out, says each fork in a sentence and names the sessions left', () => {
  const done = report(
    [
      came('ses_a', 'new', { bytes: 10 }),
      came('ses_b', 'updated', { bytes: 10 }),
      came('ses_c', 'forked', { title: 'Deploy notes', machineName: 'desktop', fork: { id: 'ses_f', title: 'Deploy notes (on laptop)' } }),
      came('ses_d', 'busy', { title: 'Open elsewhere', reason: 'held' }),
      came('ses_e', 'busy', { title: 'Open here', reason: 'held' }),
      came('', 'refused', { title: '', ref: 'refs/braid/bad' }),
      came('ses_g', 'unchanged'),
    ],
    [pushed('ses_h', 'pushed'), pushed('ses_i', 'up-to-date'), pushed('ses_j', 'failed', { title: 'Too big' })],
  );
  const outcome = syncOutcome(done, REMOTE, { id: 'ses_e', running: false });
  assert.equal(outcome.received, 3);
  assert.equal(outcome.sent, 1);
  assert.equal(outcome.failed, 4);
  assert.equal(
    outcome.text,
    [
      `Synced with ${REMOTE}: in 1 new, 2 updated (1 forked); out 1 session, 1 up to date.`,
      '"Open elsewhere" was not synced: another window or the CLI is writing it; close it there and sync again.',
      '"Open here" was not synced: it is open in the chat; close it and sync again.',
      'refs/braid/bad was refused — see the Braid log.',
      '"Too big" could not be sent — see the Braid log.',
    ].join(' '),
  );
  assert.deepEqual(outcome.forks, [
    {
      text: '"Deploy notes" went on on desktop too: it now holds those turns; your turns are in the fork "Deploy notes (on laptop)".',
      forkId: 'ses_f',
    },
  ]);
  const running = syncOutcome(report([came('ses_e', 'busy', { title: 'Open here' })]), REMOTE, { id: 'ses_e', running: true });
  assert.ok(running.text.endsWith('"Open here" was not synced: a turn is running in it in the chat; sync again when it ends.'), running.text);
  const clean = syncOutcome(report([came('ses_a', 'unchanged')], [pushed('ses_a', 'up-to-date')]), REMOTE);
  assert.deepEqual([clean.text, clean.failed], [`Synced with ${REMOTE}: in 0 new, 0 updated; out 0 sessions, 1 up to date.`, 0]);
});

test('a fork with an empty title is named as a new session', () => {
  assert.equal(
    forkText(came('ses_c', 'forked', { title: '', fork: { id: 'ses_f', title: ' (on laptop)' } })),
    '"New session" went on on laptop too: it now holds those turns; your turns are in the fork "(on laptop)".',
  );
});

test("the log has a line per session taken in or left and per push, the dry run's marked, failures as warnings", () => {
  const lines = syncLogLines(
    report(
      [
        came('ses_a', 'forked', { bytes: 2048, fork: { id: 'ses_f', title: 'x' } }),
        came('ses_b', 'busy', { reason: 'being written by process 7' }),
        came('ses_c', 'unchanged'),
      ],
      [pushed('ses_d', 'pushed', { turns: 1, bytes: 10 }), pushed('ses_e', 'failed', { reason: 'no' })],
    ),
    false,
  );
  assert.deepEqual(lines, [
    { line: "sync: forked ses_a from laptop: 2.0 KiB; this machine's turns are in the fork ses_f", failed: false },
    { line: 'sync: left ses_b: being written by process 7', failed: true },
    { line: 'sync push: ses_d pushed: 1 turn, 10 bytes', failed: false },
    { line: 'sync push: ses_e failed: no', failed: true },
  ]);
  assert.deepEqual(syncLogLines(report([came('ses_a', 'new')]), true), [{ line: 'sync (dry run): new ses_a from laptop', failed: false }]);
});
