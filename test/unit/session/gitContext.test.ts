import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { gitContext } from '../../../src/core/session/gitContext';
import type { MessageRecord } from '../../../src/core/wire/records';
import { hostileRepo, lazyFetchRepo, realGit } from '../../support/hostileRepo';
import { fauxAssistantMessage, sessionFixture } from '../../support/session';
import { tempDir } from '../../support/store';

const root = tempDir('braid-git-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('git context runs nothing a repository configures, and still reads the branch, the status, the commits and origin', async () => {
  const repo = hostileRepo(path.join(root, 'hostile', 'repo'), path.join(root, 'hostile', 'markers'));
  const context = await gitContext(repo.dir);
  assert.deepEqual(repo.ran(), [], 'no program the repository names ran');
  assert.match(context ?? '', /^branch: main$/m);
  assert.match(context ?? '', /^ M c\.txt$/m, 'the modified file');
  assert.doesNotMatch(context ?? '', /a\.txt|b\.txt/, 'files with unchanged content are clean');
  assert.match(context ?? '', /signed commit[\s\S]*second commit[\s\S]*first commit/);
  assert.match(context ?? '', /^origin: https:\/\/example\.invalid\/project\.git$/m, 'origin, without the credentials in its URL');

  // The fixture is live: git run plainly in the same repository runs the programs.
  repo.plainGit('status', '--short');
  repo.plainGit('log', '-3', '--oneline');
  const ran = repo.ran();
  for (const expected of ['hook-post-index-change', 'filter-clean', 'filter-process', 'gpg'])
    assert.ok(ran.includes(expected), `plain git ran ${expected} (ran: ${ran.join(', ')})`);
  assert.ok(
    ran.some((m) => m.startsWith('fsmonitor')),
    `plain git ran the fsmonitor (ran: ${ran.join(', ')})`,
  );
});

test('git context never runs a program named git in the workspace, even with a relative PATH entry', async () => {
  const repo = hostileRepo(path.join(root, 'path', 'repo'), path.join(root, 'path', 'markers'));
  fs.writeFileSync(path.join(repo.dir, 'git'), `#!/bin/sh\ntouch '${path.join(repo.markers, 'workspace-git')}'\n`, { mode: 0o755 });
  const savedPath = process.env.PATH;
  process.env.PATH = `.${path.delimiter}${savedPath}`;
  try {
    assert.match((await gitContext(repo.dir)) ?? '', /^branch: main$/m, 'the real git answered');
  } finally {
    process.env.PATH = savedPath;
  }
  assert.deepEqual(repo.ran(), []);
});

test("git context never fetches: a partial clone's missing commit is not fetched through an ext:: remote", async () => {
  const repo = lazyFetchRepo(path.join(root, 'lazy', 'repo'), path.join(root, 'lazy', 'markers'));
  const context = await gitContext(repo.dir);
  assert.deepEqual(repo.ran(), [], 'the remote command did not run');
  assert.match(context ?? '', /^branch: main$/m);
  repo.plainGit('log', '-3', '--oneline');
  assert.deepEqual(repo.ran(), ['lazy-fetch'], 'plain git log runs the remote command');
});

test('a session in an untrusted workspace never starts git and sends no git context; a trusted one does', async () => {
  const f = await sessionFixture();
  // A git first on PATH that leaves a marker, then hands over to the real one.
  const bin = path.join(f.root, 'bin');
  const marker = path.join(f.root, 'git-started');
  fs.mkdirSync(bin);
  const git = realGit();
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\ntouch '${marker}'\nexec '${git}' "$@"\n`, { mode: 0o755 });
  execFileSync(git, ['init', '-q', '-b', 'trunk'], { cwd: f.workspace });
  const savedPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
  const firstPrompt = async (trusted: boolean) => {
    f.faux.setResponses([fauxAssistantMessage('ok')]);
    const session = await f.open({ trusted, gitContext: true });
    await session.submit(`a prompt, trusted: ${trusted}`);
    await session.waitForIdle();
    const user = f.records(session.id).find((r) => r.t === 'message') as MessageRecord;
    return JSON.stringify(user.message.content);
  };
  try {
    const untrusted = await firstPrompt(false);
    assert.equal(fs.existsSync(marker), false, 'git was not started');
    assert.doesNotMatch(untrusted, /Git context/);
    const trusted = await firstPrompt(true);
    assert.equal(fs.existsSync(marker), true, 'in a trusted workspace git runs (through the PATH above)');
    assert.match(trusted, /Git context of the workspace:.*branch: trunk/);
  } finally {
    process.env.PATH = savedPath;
    await f.cleanup();
  }
});
