import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { thisMachine } from '../../../src/core/share/machine';
import { ownSessions } from '../../../src/core/share/ownSessions';
import { pushSessions, type PushRequest } from '../../../src/core/share/push';
import { knownSecrets } from '../../../src/core/share/redact';
import { sessionRedaction } from '../../../src/core/share/sessionRedaction';
import { ShareGit } from '../../../src/core/share/shareGit';
import { realGit } from '../../support/hostileRepo';
import { fauxAssistantMessage, sessionFixture } from '../../support/session';

// The VS Code push sends what its dry run showed: a turn that ends between the dry run and the
// user's confirmation is not sent unreviewed, and goes with the next push.

test('a push capped at its dry run sends the turns the dry run showed, not one that ended since', async () => {
  const f = await sessionFixture();
  try {
    const remote = path.join(f.root, 'remote.git');
    execFileSync(realGit(), ['init', '--bare', '-q', remote]);
    const session = await f.open();
    for (const prompt of ['one', 'two']) {
      f.faux.setResponses([fauxAssistantMessage(`answer ${prompt}`)]);
      await session.submit(prompt);
      await session.waitForIdle();
    }
    const request = async (): Promise<PushRequest> => ({
      git: await ShareGit.open(f.store.layout.root),
      store: f.store,
      remote: { url: remote, shown: remote },
      machine: thisMachine(f.store.layout.root, 'laptop'),
      author: 'ada',
      sessions: ownSessions(f.store, f.workspace),
      rootCommits: new Map(),
      redactFor: sessionRedaction(knownSecrets({})),
      dryRun: true,
    });
    const dry = await pushSessions(await request());
    assert.equal(dry[0]!.turns, 2);
    f.faux.setResponses([fauxAssistantMessage('answer three')]);
    await session.submit('three (after the dry run)');
    await session.waitForIdle();

    const upTo = new Map(dry.map((r) => [r.id, r.ends!]));
    const pushed = await pushSessions({ ...(await request()), dryRun: false, upTo });
    assert.deepEqual(
      pushed.map((r) => [r.outcome, r.turns]),
      [['pushed', 2]],
      'the two turns the dry run showed',
    );
    const objects = execFileSync(realGit(), ['--git-dir', remote, 'cat-file', '--batch-all-objects', '--batch'], { encoding: 'latin1' });
    assert.ok(objects.includes('answer two'));
    assert.ok(!objects.includes('three (after the dry run)'), 'the turn that ended after the dry run is not sent');

    const next = await pushSessions({ ...(await request()), dryRun: false });
    assert.deepEqual(
      next.map((r) => [r.outcome, r.turns]),
      [['pushed', 1]],
      'it goes with the next push',
    );
  } finally {
    await f.cleanup();
  }
});
