import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readHead } from '../../../src/core/git/headCommit';
import type { CommitRecord, WireRecord } from '../../../src/core/wire/records';
import { realGit } from '../../support/hostileRepo';
import { fauxAssistantMessage, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';
import { tempDir } from '../../support/store';

// Commits made while a turn runs are recorded in its log (one `commit` record each, before its
// turn_end), found by reading HEAD from .git at the turn's start and end: a turn that moved no
// HEAD starts no git process for it. Checked against real git.

const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

function gitIn(dir: string): (...args: string[]) => string {
  return (...args) => execFileSync(realGit(), args, { cwd: dir, env: { ...process.env, ...identity }, encoding: 'utf8' });
}

test('HEAD read from .git is what git says, through commits, packed refs, a detached HEAD, an unborn branch and a linked worktree', () => {
  const root = tempDir('braid-head-');
  try {
    const dir = path.join(root, 'repo');
    fs.mkdirSync(dir);
    const git = gitIn(dir);
    git('init', '-q', '-b', 'main');
    assert.deepEqual(readHead(dir), { top: dir, commit: null }, 'unborn');
    const rev = () => git('rev-parse', 'HEAD').trim();
    fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    git('add', '.');
    git('commit', '-q', '-m', 'one');
    assert.equal(readHead(path.join(dir))?.commit, rev());
    fs.mkdirSync(path.join(dir, 'sub'));
    assert.deepEqual(readHead(path.join(dir, 'sub')), { top: dir, commit: rev() }, 'from a folder inside');
    git('commit', '-q', '--allow-empty', '-m', 'two');
    git('pack-refs', '--all');
    assert.equal(fs.existsSync(path.join(dir, '.git', 'refs', 'heads', 'main')), false);
    assert.equal(readHead(dir)?.commit, rev(), 'packed');
    git('checkout', '-q', '--detach', 'HEAD~1');
    assert.equal(readHead(dir)?.commit, rev(), 'detached');
    git('checkout', '-q', 'main');
    const linked = path.join(root, 'linked');
    git('worktree', 'add', '-q', '-b', 'side', linked);
    gitIn(linked)('commit', '-q', '--allow-empty', '-m', 'on the side');
    assert.deepEqual(readHead(linked), { top: linked, commit: gitIn(linked)('rev-parse', 'HEAD').trim() }, 'linked worktree');
    assert.notEqual(readHead(linked)?.commit, readHead(dir)?.commit);
    git('checkout', '-q', '--orphan', 'fresh');
    assert.equal(readHead(dir)?.commit, null, 'an unborn branch beside others');
    assert.equal(readHead(path.join(root)), undefined, 'no repository');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a HEAD that is a link, or a ref that names something else, is left to git', () => {
  const root = tempDir('braid-head-odd-');
  try {
    const git = gitIn(root);
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'one');
    const head = path.join(root, '.git', 'HEAD');
    fs.writeFileSync(head, 'ref: refs/heads/../../../etc/passwd\n');
    assert.equal(readHead(root), undefined, 'a ref outside refs/heads');
    fs.rmSync(head);
    fs.writeFileSync(path.join(root, 'elsewhere'), 'ref: refs/heads/main\n');
    fs.symlinkSync(path.join(root, 'elsewhere'), head);
    assert.equal(readHead(root), undefined, 'a linked HEAD');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

/** A session fixture whose workspace is a repository with one commit, and git counted through PATH. */
async function repoFixture(): Promise<{ f: SessionFixture; git: (...args: string[]) => string; gitsStarted: () => string[]; done: () => Promise<void> }> {
  const f = await sessionFixture({ 'a.txt': 'alpha\n' });
  const git = gitIn(f.workspace);
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'before the session');
  const bin = path.join(f.root, 'bin');
  const started = path.join(f.root, 'git-started.log');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${started}'\nexec '${realGit()}' "$@"\n`, { mode: 0o755 });
  const savedPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
  const savedIdentity = Object.keys(identity).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, identity);
  const gitsStarted = () => {
    const lines = fs.existsSync(started) ? fs.readFileSync(started, 'utf8').split('\n').filter(Boolean) : [];
    fs.rmSync(started, { force: true });
    return lines;
  };
  const done = async () => {
    process.env.PATH = savedPath;
    for (const [k, v] of savedIdentity)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    await f.cleanup();
  };
  return { f, git, gitsStarted, done };
}

/** A turn whose model runs `command` in the shell, then answers. */
async function shellTurn(f: SessionFixture, session: Awaited<ReturnType<SessionFixture['open']>>, command: string): Promise<void> {
  f.faux.setResponses([
    fauxAssistantMessage(fauxToolCall('bash', { command }, { id: `b-${Date.now()}` }), { stopReason: 'toolUse' }),
    fauxAssistantMessage('done'),
  ]);
  await session.submit(`run ${command}`);
  await session.waitForIdle();
}

const commitsOf = (records: WireRecord[]) => records.filter((r): r is CommitRecord => r.t === 'commit');

test("a turn's commits are recorded with their files before its end; a turn that commits nothing starts no git process for it", async () => {
  const { f, git, gitsStarted, done } = await repoFixture();
  try {
    const session = await f.open({ gitContext: true });
    await shellTurn(
      f,
      session,
      'printf "alpha 2\\n" > a.txt && mkdir -p src && echo b > "src/b c.txt" && git add -A && git commit -q -m "first by the agent" && git rm -q a.txt && git commit -q -m "second: a.txt goes"',
    );
    const records = f.records(session.id);
    const commits = commitsOf(records);
    const ids = git('rev-list', '--reverse', 'HEAD~2..HEAD').trim().split('\n');
    assert.deepEqual(
      commits.map((c) => [c.turn, c.commit, c.subject, c.files]),
      [
        [
          1,
          ids[0],
          'first by the agent',
          [
            { status: 'M', path: 'a.txt' },
            { status: 'A', path: 'src/b c.txt' },
          ],
        ],
        [1, ids[1], 'second: a.txt goes', [{ status: 'D', path: 'a.txt' }]],
      ],
    );
    assert.equal(commits[0]!.root, fs.realpathSync(f.workspace));
    assert.deepEqual(commits[1]!.parents, [ids[0]]);
    const end = records.findIndex((r) => r.t === 'turn_end');
    assert.ok(records.indexOf(commits[1]!) < end, 'the commits come before turn_end');
    // Turns that leave HEAD alone: the first reads the repository's changed facts again, the next
    // starts only the status for the model's context; neither looks for commits.
    await shellTurn(f, session, 'echo changed > new.txt');
    gitsStarted();
    await shellTurn(f, session, 'echo changed again > new.txt');
    assert.equal(commitsOf(f.records(session.id)).length, 2, 'no new commit record');
    assert.deepEqual(
      gitsStarted().map((line) => line.split(' ').find((w) => /^[a-z][a-z-]*$/.test(w))),
      ['status'],
    );
  } finally {
    await done();
  }
});

test('HEAD moved onto commits made before the turn (a checkout, a reset) records nothing; a commit made in the turn is recorded', async () => {
  const { f, git, done } = await repoFixture();
  try {
    const past = { GIT_COMMITTER_DATE: '2020-01-01T00:00:00Z', GIT_AUTHOR_DATE: '2020-01-01T00:00:00Z' };
    execFileSync(realGit(), ['commit', '-q', '--allow-empty', '-m', 'second before the session'], {
      cwd: f.workspace,
      env: { ...process.env, ...identity, ...past },
    });
    git('checkout', '-q', '--detach', 'HEAD~1');
    const session = await f.open({ gitContext: true });
    await shellTurn(f, session, 'git checkout -q main'); // forward onto a commit made before the turn
    await shellTurn(f, session, 'git reset -q --hard HEAD~1'); // backward
    assert.deepEqual(commitsOf(f.records(session.id)), []);
    await shellTurn(f, session, 'git commit -q --allow-empty -m "made in turn 3"');
    assert.deepEqual(
      commitsOf(f.records(session.id)).map((c) => [c.turn, c.subject, c.files]),
      [[3, 'made in turn 3', []]],
    );
  } finally {
    await done();
  }
});

test('a commit subject with the separators git log is read with is recorded whole, or the turn records none and still ends', async () => {
  const { f, git, done } = await repoFixture();
  try {
    const session = await f.open({ gitContext: true });
    await shellTurn(f, session, `git commit -q --allow-empty -m "$(printf 'odd \\036 subject \\037 here')"`);
    const records = f.records(session.id);
    assert.equal(records.filter((r) => r.t === 'turn_end').at(-1)?.['outcome' as never], 'completed');
    const commits = commitsOf(records);
    const subject = git('log', '-1', '--format=%s').trimEnd();
    assert.ok(commits.length === 0 || (commits.length === 1 && commits[0]!.subject === subject), JSON.stringify(commits));
  } finally {
    await done();
  }
});
