import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { NO_REPOSITORY, repoFingerprint } from '../../../src/core/git/repoFingerprint';
import { gitContext } from '../../../src/core/session/gitContext';
import { hostileRepo, realGit } from '../../support/hostileRepo';
import { tempDir } from '../../support/store';

// The git context from one turn to the next: an unchanged repository costs one git process (the
// status, which the work tree changes without .git changing), a change in HEAD, refs or
// configuration is seen at the next turn, and a filter driver configured between turns is
// overridden like one there from the start. git is counted by a git first on PATH that notes its
// arguments and hands over to the real one.
const root = tempDir('braid-git-turns-');
const started = path.join(root, 'git-started.log');
let savedPath: string | undefined;

before(() => {
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${started}'\nexec '${realGit()}' "$@"\n`, { mode: 0o755 });
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
});
after(() => {
  process.env.PATH = savedPath;
  fs.rmSync(root, { recursive: true, force: true });
});

const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

/** A repository with two commits in `root/<name>`, and a plain git to change it with. */
function repo(name: string): { dir: string; git: (...args: string[]) => string } {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  const git = (...args: string[]) => execFileSync(realGit(), args, { cwd: dir, env: { ...process.env, ...identity }, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
  git('add', '.');
  git('commit', '-q', '-m', 'first commit');
  fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha 2\n');
  git('commit', '-q', '-am', 'second commit');
  return { dir, git };
}

/** The git context of `dir` and the git processes it started. */
async function turn(dir: string): Promise<{ context: string | undefined; gits: string[] }> {
  fs.rmSync(started, { force: true });
  const context = await gitContext(dir);
  const gits = fs.existsSync(started) ? fs.readFileSync(started, 'utf8').split('\n').filter(Boolean) : [];
  return { context, gits };
}

const subcommand = (line: string) => line.split(' ').find((word) => /^[a-z][a-z-]*$/.test(word));

test('an unchanged repository costs one git process a turn, the status; the work tree is read fresh every turn', async () => {
  const { dir } = repo('unchanged');
  const first = await turn(dir);
  assert.equal(first.gits.length, 6, first.gits.join('\n'));
  assert.match(first.context ?? '', /^branch: main$/m);
  const second = await turn(dir);
  assert.deepEqual(second.gits.map(subcommand), ['status']);
  assert.equal(second.context, first.context);
  // Edits that change nothing in .git: a tracked file, a new file.
  fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha 3\n');
  fs.writeFileSync(path.join(dir, 'new.txt'), 'new\n');
  const edited = await turn(dir);
  assert.deepEqual(edited.gits.map(subcommand), ['status']);
  assert.match(edited.context ?? '', /status:\n M a\.txt\n\?\? new\.txt\n/);
});

test('a commit, a reset over packed refs, a branch, a detached HEAD, a new origin and a replaced commit are seen at the next turn', async () => {
  const { dir, git } = repo('changes');
  await turn(dir);
  const changes: Array<[string, () => void, RegExp]> = [
    ['a commit', () => git('commit', '-q', '--allow-empty', '-m', 'third commit'), /recent commits:\n\w+ third commit\n/],
    [
      'a reset after the refs were packed',
      () => {
        git('pack-refs', '--all');
        git('reset', '-q', '--soft', 'HEAD~1');
      },
      /recent commits:\n\w+ second commit\n/,
    ],
    ['a new branch', () => git('checkout', '-q', '-b', 'feature'), /^branch: feature$/m],
    ['a detached HEAD', () => git('checkout', '-q', '--detach', 'HEAD~1'), /^branch: \(detached\)$/m],
    ['a new origin', () => git('remote', 'add', 'origin', 'https://example.invalid/x.git'), /^origin: https:\/\/example\.invalid\/x\.git$/m],
    [
      'a replacement of the commit HEAD names',
      () => git('replace', 'HEAD', git('commit-tree', 'HEAD^{tree}', '-m', 'a replacement').trim()),
      /recent commits:\n\w+ a replacement$/,
    ],
  ];
  for (const [what, change, expected] of changes) {
    change();
    const after = await turn(dir);
    assert.match(after.context ?? '', expected, what);
    const again = await turn(dir);
    assert.deepEqual(again.gits.map(subcommand), ['status'], `nothing changed after ${what}`);
    assert.equal(again.context, after.context);
  }
});

test('a filter driver configured between turns is overridden like one configured from the start', async () => {
  const { dir, git } = repo('filter-later');
  const markers = path.join(root, 'filter-later-markers');
  fs.mkdirSync(markers);
  await turn(dir);
  await turn(dir); // remembered: the next turn would start only the status
  const clean = path.join(root, 'filter-later-clean');
  fs.writeFileSync(clean, `#!/bin/sh\ntouch '${path.join(markers, 'filter-clean')}'\nexec cat\n`, { mode: 0o755 });
  git('config', 'filter.later.clean', clean);
  fs.writeFileSync(path.join(dir, '.gitattributes'), 'a.txt filter=later\n');
  fs.utimesSync(path.join(dir, 'a.txt'), new Date('2001-01-01'), new Date('2001-01-01')); // stat-dirty: status reads it through the filter
  const after = await turn(dir);
  assert.equal(after.gits.length, 6, 'the configuration changed: everything is asked again');
  assert.deepEqual(fs.readdirSync(markers), [], 'the filter did not run');
  git('status', '--short');
  assert.deepEqual(fs.readdirSync(markers), ['filter-clean'], 'plain git runs it');
});

test('a configuration that includes a file is asked every turn: the file may change in the work tree', async () => {
  const repo = hostileRepo(path.join(root, 'included', 'repo'), path.join(root, 'included', 'markers'));
  const first = await turn(repo.dir);
  assert.equal(first.gits.length, 6);
  const program = path.join(root, 'included-clean');
  fs.writeFileSync(program, `#!/bin/sh\ntouch '${path.join(repo.markers, 'included-filter')}'\nexec cat\n`, { mode: 0o755 });
  fs.appendFileSync(path.join(repo.dir, 'included.gitconfig'), `[filter "inc"]\n\tclean = ${program}\n`);
  fs.writeFileSync(path.join(repo.dir, '.gitattributes'), 'a.txt filter=inc\n');
  fs.utimesSync(path.join(repo.dir, 'a.txt'), new Date('2002-01-01'), new Date('2002-01-01'));
  const second = await turn(repo.dir);
  assert.equal(second.gits.length, 6);
  assert.match(second.context ?? '', /^branch: main$/m);
  assert.deepEqual(repo.ran(), []);
});

test('outside a repository no git starts; a linked worktree is asked in full every turn', async () => {
  const plain = path.join(root, 'no-repo');
  fs.mkdirSync(plain);
  assert.deepEqual(await turn(plain), { context: undefined, gits: [] });
  const { git } = repo('with-worktree');
  const linked = path.join(root, 'linked');
  git('worktree', 'add', '-q', '-b', 'side', linked);
  for (let i = 0; i < 2; i++) {
    const t = await turn(linked);
    assert.equal(t.gits.length, 6);
    assert.match(t.context ?? '', /^branch: side$/m);
  }
});

test('the fingerprint reads no FIFO, follows no link out of .git and reads no large file: it leaves those to git', () => {
  const { dir } = repo('odd-files');
  assert.notEqual(repoFingerprint(dir), undefined);
  assert.equal(repoFingerprint(path.join(root, 'no-repo')), NO_REPOSITORY);
  const gitDir = path.join(dir, '.git');
  const heads = path.join(gitDir, 'refs', 'heads');
  // The ref HEAD names, a FIFO: opening it for reading would wait for a writer.
  fs.renameSync(path.join(heads, 'main'), path.join(root, 'main-ref'));
  execFileSync('mkfifo', [path.join(heads, 'main')]);
  assert.equal(repoFingerprint(dir), undefined);
  fs.rmSync(path.join(heads, 'main'));
  // refs/heads a link to a folder outside .git.
  const outside = path.join(root, 'outside-heads');
  fs.renameSync(heads, outside);
  fs.renameSync(path.join(root, 'main-ref'), path.join(outside, 'main'));
  fs.symlinkSync(outside, heads);
  assert.equal(repoFingerprint(dir), undefined);
  fs.rmSync(heads);
  fs.renameSync(outside, heads);
  assert.notEqual(repoFingerprint(dir), undefined);
  // HEAD a link; a configuration larger than anything read whole.
  fs.renameSync(path.join(gitDir, 'HEAD'), path.join(gitDir, 'HEAD.real'));
  fs.symlinkSync('HEAD.real', path.join(gitDir, 'HEAD'));
  assert.equal(repoFingerprint(dir), undefined);
  fs.rmSync(path.join(gitDir, 'HEAD'));
  fs.renameSync(path.join(gitDir, 'HEAD.real'), path.join(gitDir, 'HEAD'));
  fs.appendFileSync(path.join(gitDir, 'config'), `# ${'x'.repeat(300 * 1024)}\n`);
  assert.equal(repoFingerprint(dir), undefined);
});
