import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { braidIn } from '../../support/cli';
import { initRepo, gitIn } from '../../support/gitRepo';
import { hostileRepo } from '../../support/hostileRepo';
import { fauxAssistantMessage, fauxRead, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { branchSlug, linkedWorkspaces, worktreeMissing } from '../../../src/core/store/worktreeFork';
import { addWorktree } from '../../../src/core/git/worktree';
import { SafeGit } from '../../../src/core/git/safeGit';

const read = (...parts: string[]) => fs.readFileSync(path.join(...parts), 'utf8');

/** A session in a repository whose first turn rewrote notes.md (committed afterwards, so the checkout is clean). */
async function repoSession(files: Record<string, string> = {}): Promise<{ f: SessionFixture; id: string; git: (...a: string[]) => string }> {
  const f = await sessionFixture();
  const git = initRepo(f.workspace, { 'notes.md': 'original\n', ...files });
  f.faux.setResponses([
    fauxRead('notes.md'),
    fauxAssistantMessage(fauxToolCall('write_file', { path: 'notes.md', content: 'turn one\n' }, { id: 'w1' }), { stopReason: 'toolUse' }),
    fauxAssistantMessage('Rewrote the notes.'),
  ]);
  const session = await f.open();
  await session.submit('Rewrite the notes');
  await session.waitForIdle();
  await session.close();
  git('commit', '-q', '-am', 'turn one');
  return { f, id: session.id, git };
}

const cli = (f: SessionFixture, args: string[], env: NodeJS.ProcessEnv = {}) =>
  braidIn(['--data-dir', path.join(f.root, 'store'), ...args], { env, cwd: f.workspace });

test('a fork into a worktree runs there: its edits, rewinds (of inherited turns too) and undo act in the worktree, never in the checkout; Finish merges', async () => {
  const { f, id, git } = await repoSession();
  try {
    const made = await cli(f, ['fork', id, '--worktree', '--json']);
    assert.equal(made.code, 0, made.err);
    const fork = JSON.parse(made.out) as { id: string; workspaceDir: string; runLocation: { worktree: string; branch: string; repository: string } };
    const worktree = fork.runLocation.worktree;
    assert.equal(worktree, path.join(`${fs.realpathSync(f.workspace)}.worktrees`, 'rewrite-the-notes'));
    assert.equal(fork.runLocation.branch, 'braid/rewrite-the-notes');
    assert.match(made.err, /runs in the worktree .* on branch braid\/rewrite-the-notes/);
    assert.equal(read(worktree, 'notes.md'), 'turn one\n');
    const state = f.store.get(fork.id);
    assert.equal(state.workspaceKey, workspaceKey(worktree), 'the fork belongs to the worktree workspace');
    assert.deepEqual(linkedWorkspaces(f.store, workspaceKey(f.workspace)), [workspaceKey(worktree)], "the source's workspace lists it");

    // The checkout goes on with changes of its own; nothing below may touch them.
    fs.writeFileSync(path.join(f.workspace, 'notes.md'), 'the checkout moved on\n');
    f.faux.setResponses([
      fauxAssistantMessage(fauxToolCall('write_file', { path: 'notes.md', content: 'in the worktree\n' }, { id: 'w2' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('Done there.'),
    ]);
    const there = await f.open({ workspaceDirs: [worktree] }, fork.id);
    await there.submit('Rewrite them in the worktree');
    await there.waitForIdle();
    await there.close();
    assert.equal(read(worktree, 'notes.md'), 'in the worktree\n');

    const back = await cli(f, ['rewind', fork.id, '--turn', '2', '--files']);
    assert.equal(back.code, 0, back.err);
    assert.equal(read(worktree, 'notes.md'), 'turn one\n');
    // Turn 1 happened in the checkout before the fork; rewound in the fork, it is undone in the worktree.
    const inherited = await cli(f, ['rewind', fork.id, '--turn', '1', '--files', '--confirm-outside']);
    assert.equal(inherited.code, 0, inherited.err);
    assert.doesNotMatch(inherited.out, /left alone/);
    assert.equal(read(worktree, 'notes.md'), 'original\n');
    assert.equal(read(f.workspace, 'notes.md'), 'the checkout moved on\n', 'the checkout is never touched');
    const undone = await cli(f, ['undo-rewind', fork.id]);
    assert.equal(undone.code, 0, undone.err);
    assert.equal(read(worktree, 'notes.md'), 'turn one\n');
    assert.equal(read(f.workspace, 'notes.md'), 'the checkout moved on\n');

    // Finish refuses while the worktree has uncommitted changes, and names them.
    fs.writeFileSync(path.join(worktree, 'notes.md'), 'in the worktree\n');
    const refused = await cli(f, ['finish', fork.id, '--merge']);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /the worktree at .* has 1 uncommitted change \(notes\.md\); commit them there or discard them, then finish/);
    assert.ok(fs.existsSync(worktree));
    gitIn(worktree)('commit', '-q', '-am', 'work in the worktree');
    // A checkout whose own changes the merge would overwrite: git refuses, nothing changes, the worktree stays.
    const blocked = await cli(f, ['finish', fork.id, '--merge']);
    assert.equal(blocked.code, 1);
    assert.match(blocked.err, /git could not merge braid\/rewrite-the-notes into .*; nothing was changed, and the worktree is kept/);
    assert.equal(read(f.workspace, 'notes.md'), 'the checkout moved on\n');
    assert.ok(fs.existsSync(worktree));

    git('checkout', '--', 'notes.md');
    const finished = await cli(f, ['finish', fork.id, '--merge', '--delete-branch']);
    assert.equal(finished.code, 0, finished.err);
    assert.match(finished.out, /^merged 1 commit of braid\/rewrite-the-notes into .*; removed the worktree .*; deleted branch braid\/rewrite-the-notes\n$/);
    assert.equal(read(f.workspace, 'notes.md'), 'in the worktree\n');
    assert.equal(fs.existsSync(worktree), false);
    assert.equal(git('branch', '--list', 'braid/*').trim(), '');
    assert.equal(f.store.get(fork.id).runLocation?.finished?.how, 'merge');
    const again = await cli(f, ['finish', fork.id, '--merge']);
    assert.match(again.err, /was finished already \(merge\)/);
  } finally {
    await f.cleanup();
  }
});

test('fork --worktree outside a repository says so and offers a plain fork; nothing is created', async () => {
  const f = await sessionFixture();
  try {
    const s = await f.store.create({ workspaceDir: f.workspace });
    const out = await cli(f, ['fork', s.id, '--worktree']);
    assert.equal(out.code, 1);
    assert.equal(
      out.err,
      `braid: ${f.workspace} is not in a git repository, so there is no worktree to fork into; a plain fork works anywhere (braid fork ${s.id.slice(-6)})\n`,
    );
    assert.equal(f.store.index.list({}).length, 1, 'no session was made');
    assert.equal(
      (await cli(f, ['finish', s.id, '--merge'])).err,
      `braid: session ${s.id} does not run in a worktree of its own; only a session forked into a worktree can be finished\n`,
    );
    assert.equal((await cli(f, ['fork', s.id, '--branch', 'x'])).code, 2, '--branch goes with --worktree');
  } finally {
    await f.cleanup();
  }
});

test('a dirty checkout: the fork names the changes its worktree lacks, or carries them with --carry-changes', async () => {
  const { f, id } = await repoSession();
  try {
    fs.writeFileSync(path.join(f.workspace, 'notes.md'), 'uncommitted edit\n');
    fs.writeFileSync(path.join(f.workspace, 'new.txt'), 'untracked\n');
    const lacking = await cli(f, ['fork', id, '--worktree', '--json']);
    assert.equal(lacking.code, 0, lacking.err);
    assert.match(lacking.err, /the worktree starts from the last commit, so it lacks 2 uncommitted changes of the checkout \(notes\.md, new\.txt\)/);
    const plain = JSON.parse(lacking.out) as { runLocation: { worktree: string } };
    assert.equal(read(plain.runLocation.worktree, 'notes.md'), 'turn one\n');
    assert.equal(fs.existsSync(path.join(plain.runLocation.worktree, 'new.txt')), false);

    const carried = await cli(f, ['fork', id, '--worktree', '--carry-changes', '--json']);
    assert.equal(carried.code, 0, carried.err);
    assert.match(carried.err, /carried 2 uncommitted changes into the worktree/);
    const withThem = JSON.parse(carried.out) as { runLocation: { worktree: string; branch: string } };
    assert.equal(withThem.runLocation.branch, 'braid/rewrite-the-notes-2', 'the first name was taken');
    assert.equal(read(withThem.runLocation.worktree, 'notes.md'), 'uncommitted edit\n');
    assert.equal(read(withThem.runLocation.worktree, 'new.txt'), 'untracked\n');
    assert.equal(read(f.workspace, 'notes.md'), 'uncommitted edit\n', 'the checkout keeps its changes');
  } finally {
    await f.cleanup();
  }
});

test('a branch name that is taken or invalid is refused before anything is made; --worktree-root places the worktree', async () => {
  const { f, id, git } = await repoSession();
  try {
    git('branch', 'taken');
    const taken = await cli(f, ['fork', id, '--worktree', '--branch', 'taken']);
    assert.equal(taken.code, 1);
    assert.match(taken.err, /^braid: branch taken exists already in .*; choose another name, or leave it out for a new one\n$/);
    const invalid = await cli(f, ['fork', id, '--worktree', '--branch', 'two..dots']);
    assert.match(invalid.err, /"two\.\.dots" is not a branch name git accepts/);
    assert.equal(f.store.index.list({ workspaceKey: workspaceKey(f.workspace) }).length, 1);
    assert.equal(git('worktree', 'list').trim().split('\n').length, 1, 'no worktree was added');

    const root = path.join(f.root, 'elsewhere');
    const placed = await cli(f, ['fork', id, '--worktree', '--branch', 'feature/x', '--json'], { BRAID_WORKTREE_ROOT: root });
    assert.equal(placed.code, 0, placed.err);
    assert.equal((JSON.parse(placed.out) as { runLocation: { worktree: string } }).runLocation.worktree, path.join(fs.realpathSync(root), 'feature-x'));
  } finally {
    await f.cleanup();
  }
});

test('a worktree that cannot be added leaves nothing: no session, no branch, no worktree, no folder made for it', async () => {
  const { f, id, git } = await repoSession();
  try {
    const branches = git('branch', '--list');
    const sessions = f.store.index.list({}).length;
    // A worktree root that cannot be made (/proc takes no new folders; Node's recursive mkdir never returned there): refused before git runs.
    if (fs.existsSync('/proc/self')) {
      const refused = await cli(f, ['fork', id, '--worktree', '--worktree-root', '/proc/self/worktrees']);
      assert.equal(refused.code, 1, refused.err);
      assert.match(refused.err, /^braid: cannot create the folder \/proc\/self\/worktrees: .+\n$/);
    }
    // git itself fails (a base that is no commit) after the folders for the worktree were made: they go again, and so does the branch.
    const repoGit = (await SafeGit.open(f.workspace, 10_000))!;
    const deep = path.join(f.root, 'made', 'for', 'it');
    await assert.rejects(
      addWorktree(repoGit, path.join(deep, 'wt'), 'braid/never', '0123456789abcdef0123456789abcdef01234567'),
      /git could not add the worktree/,
    );
    assert.equal(fs.existsSync(path.join(f.root, 'made')), false, 'the folders made for it are removed');
    assert.equal(git('branch', '--list'), branches, 'no branch is left');
    assert.equal(git('worktree', 'list').trim().split('\n').length, 1, 'no worktree is left');
    assert.equal(f.store.index.list({}).length, sessions, 'no session was made');
  } finally {
    await f.cleanup();
  }
});

test('a worktree deleted by hand is noticed and re-created from its branch; submodules are named as not checked out', async () => {
  const { f, id, git } = await repoSession();
  try {
    const sub = path.join(f.root, 'sub');
    initRepo(sub, { 'lib.txt': 'library\n' });
    git('-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'vendor/lib');
    git('commit', '-q', '-m', 'a submodule');
    const made = await cli(f, ['fork', id, '--worktree', '--json']);
    assert.equal(made.code, 0, made.err);
    assert.match(made.err, /the worktree's submodules \(vendor\/lib\) are not checked out; run `git submodule update --init`/);
    const fork = JSON.parse(made.out) as { id: string; runLocation: { worktree: string } };
    const worktree = fork.runLocation.worktree;
    fs.rmSync(worktree, { recursive: true, force: true });
    assert.equal(worktreeMissing(f.store.get(fork.id)), true);
    const again = await cli(f, ['recreate-worktree', fork.id]);
    assert.equal(again.code, 0, again.err);
    assert.equal(read(worktree, 'notes.md'), 'turn one\n');
    assert.equal(worktreeMissing(f.store.get(fork.id)), false);
    assert.match((await cli(f, ['recreate-worktree', fork.id])).err, /is there; nothing to re-create/);
  } finally {
    await f.cleanup();
  }
});

test('a hostile repository: forking into a worktree and finishing run none of its programs; merge drivers stop the merge', async () => {
  const f = await sessionFixture();
  try {
    const repo = hostileRepo(path.join(f.root, 'hostile'), path.join(f.root, 'markers'));
    const s = await f.store.create({ workspaceDir: repo.dir });
    const made = await cli(f, ['fork', s.id, '--worktree', '--json']);
    assert.equal(made.code, 0, made.err);
    const fork = JSON.parse(made.out) as { id: string; runLocation: { worktree: string } };
    assert.deepEqual(repo.ran(), [], 'worktree add ran nothing the repository configures');
    gitIn(repo.dir)('config', 'merge.evil.driver', `touch ${path.join(repo.markers, 'merge-driver')}`);
    const finished = await cli(f, ['finish', fork.id, '--merge']);
    assert.equal(finished.code, 1);
    assert.match(finished.err, /configures merge drivers \(merge\.evil\.driver\), programs Braid does not run; merge braid\/fork yourself/);
    const discarded = await cli(f, ['finish', fork.id, '--discard', '--delete-branch']);
    assert.equal(discarded.code, 0, discarded.err);
    assert.deepEqual(repo.ran(), []);
  } finally {
    await f.cleanup();
  }
});

test('a branch name is cut after a whole word of the title', () => {
  assert.equal(branchSlug('Rewrite the notes'), 'rewrite-the-notes');
  const long = branchSlug('Rewrite the notes as a checklist with dates and owners');
  assert.equal(long, 'rewrite-the-notes-as-a-checklist-with');
  assert.ok('rewrite-the-notes-as-a-checklist-with-dates-and-owners'.startsWith(`${long}-`), 'whole words only');
  assert.equal(branchSlug('x'.repeat(60)), 'x'.repeat(40), 'one long word is cut');
  assert.equal(branchSlug('Ünïcode — only'), 'unicode-only');
});
