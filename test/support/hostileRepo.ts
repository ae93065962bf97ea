import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A git repository whose configuration names programs git would run, each leaving a marker file when it runs. */
export interface HostileRepo {
  readonly dir: string;
  /** Where the programs leave their markers (outside the repository). */
  readonly markers: string;
  /** The markers present now. */
  ran(): string[];
  /** Runs git as an unprotected tool would (no overrides, this process's environment), ignoring its failure. */
  plainGit(...args: string[]): void;
}

const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

/** The absolute path of the git on PATH. */
export const realGit = (): string => execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** A new repository in `dir` and a git to build it with (plain, with a fixed identity). */
function initRepo(dir: string, markers: string): (...args: string[]) => string {
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(markers, { recursive: true });
  const gitBin = realGit();
  const git = (...args: string[]) =>
    execFileSync(gitBin, args, { cwd: dir, env: { ...process.env, ...identity }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  return git;
}

function handle(dir: string, markers: string): HostileRepo {
  return {
    dir,
    markers,
    ran: () => fs.readdirSync(markers).sort(),
    plainGit: (...args) => {
      try {
        execFileSync(realGit(), args, { cwd: dir, stdio: 'ignore' });
      } catch {
        // a command the fixture breaks (a filter that does not speak the protocol, a failed fetch) still ran its programs
      }
    },
  };
}

/** Hooks git status, log, branch or remote could run when they refresh the index or update a ref. */
const HOOKS = ['post-index-change', 'reference-transaction', 'post-checkout', 'pre-auto-gc', 'post-rewrite', 'fsmonitor-watchman'];

/**
 * Builds the repository in `dir` (created): commits made while nothing is configured, then the
 * configuration: core.fsmonitor, hooks in core.hooksPath and .git/hooks, diff.external, pagers,
 * filter drivers assigned by .gitattributes and .git/info/attributes (one named in mixed case, one
 * a long-running `process` filter), a diff driver's textconv and command, log.showSignature with
 * gpg programs over a commit that carries a signature, status.submoduleSummary, ssh, credential,
 * askpass and editor programs, an alias shadowing `status`, and an included config file. Two
 * tracked files are left stat-dirty (same content, another mtime), so status re-reads them
 * through their filters; one tracked file is modified.
 */
export function hostileRepo(dir: string, markers: string): HostileRepo {
  const git = initRepo(dir, markers);
  const bin = path.join(path.dirname(markers), 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const program = (name: string) => {
    const file = path.join(bin, name);
    // A filter or pager passes its input through, so one that runs still does its job; the fsmonitor reads none.
    fs.writeFileSync(file, `#!/bin/sh\ntouch '${path.join(markers, name)}'\n${name.startsWith('fsmonitor') ? '' : 'exec cat\n'}`, { mode: 0o755 });
    return file;
  };
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
  write('.gitattributes', 'a.txt filter=evil diff=evil\nc.txt diff=evil\n');
  write('a.txt', 'alpha\n');
  write('b.txt', 'bravo\n');
  write('c.txt', 'charlie\n');
  git('add', '.');
  git('commit', '-q', '-m', 'first commit');
  write('c.txt', 'charlie 2\n');
  git('commit', '-q', '-am', 'second commit');
  // A third commit that carries a (fake) signature: showing it with log.showSignature runs gpg.program.
  const tree = git('rev-parse', 'HEAD^{tree}').trim();
  const parent = git('rev-parse', 'HEAD').trim();
  const signed = [
    `tree ${tree}`,
    `parent ${parent}`,
    'author t <t@t> 1700000000 +0000',
    'committer t <t@t> 1700000000 +0000',
    'gpgsig -----BEGIN PGP SIGNATURE-----',
    ' ',
    ' iQEzBAABCAAdFiEEfake',
    ' -----END PGP SIGNATURE-----',
    '',
    'signed commit',
    '',
  ].join('\n');
  const signedId = execFileSync(realGit(), ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: dir, input: signed, encoding: 'utf8' }).trim();
  git('update-ref', 'refs/heads/main', signedId);
  fs.writeFileSync(path.join(dir, '.git', 'info', 'attributes'), 'b.txt filter=Evil2\n');

  const hooks = path.join(dir, '.githooks');
  fs.mkdirSync(hooks);
  for (const hook of HOOKS) {
    const body = `#!/bin/sh\ntouch '${path.join(markers, `hook-${hook}`)}'\n`;
    fs.writeFileSync(path.join(hooks, hook), body, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, '.git', 'hooks', hook), body, { mode: 0o755 });
  }
  write('included.gitconfig', `[core]\n\tfsmonitor = ${program('fsmonitor-included')}\n`);
  const config: Array<[string, string]> = [
    ['core.fsmonitor', program('fsmonitor')],
    ['core.hooksPath', hooks],
    ['diff.external', program('diff-external')],
    ['core.pager', program('pager')],
    ['pager.status', program('pager-status')],
    ['pager.log', program('pager-log')],
    ['pager.branch', program('pager-branch')],
    ['filter.evil.clean', program('filter-clean')],
    ['filter.evil.smudge', program('filter-smudge')],
    ['filter.evil.required', 'true'],
    ['filter.Evil2.process', program('filter-process')],
    ['diff.evil.textconv', program('textconv')],
    ['diff.evil.command', program('diff-command')],
    ['log.showSignature', 'true'],
    ['gpg.program', program('gpg')],
    ['gpg.ssh.program', program('gpg-ssh')],
    ['gpg.x509.program', program('gpg-x509')],
    ['status.submoduleSummary', 'true'],
    ['core.sshCommand', program('ssh')],
    ['credential.helper', `!${program('credential')}`],
    ['core.askPass', program('askpass')],
    ['core.editor', program('editor')],
    ['alias.status', `!${program('alias')}`],
    ['remote.origin.url', 'https://someone:s3cret-token@example.invalid/project.git'],
    ['remote.origin.uploadpack', program('uploadpack')],
    ['include.path', '../included.gitconfig'],
  ];
  for (const [key, value] of config) git('config', key, value);

  // Tracked files whose content is unchanged but whose mtime is not what the index recorded.
  const past = new Date('2001-01-01T00:00:00Z');
  for (const name of ['a.txt', 'b.txt']) {
    write(name, fs.readFileSync(path.join(dir, name), 'utf8'));
    fs.utimesSync(path.join(dir, name), past, past);
  }
  write('c.txt', 'charlie 3\n');

  return handle(dir, markers);
}

/**
 * A repository made to look like a partial clone whose promisor remote is an `ext::` command:
 * `git log -3` meets a missing commit and fetches it, which runs the command.
 */
export function lazyFetchRepo(dir: string, markers: string): HostileRepo {
  const git = initRepo(dir, markers);
  for (let i = 1; i <= 5; i++) {
    fs.writeFileSync(path.join(dir, 'f.txt'), `${i}\n`);
    git('add', '.');
    git('commit', '-q', '-m', `commit ${i}`);
  }
  const missing = git('rev-parse', 'HEAD~3').trim();
  fs.rmSync(path.join(dir, '.git', 'objects', missing.slice(0, 2), missing.slice(2)));
  const marker = path.join(markers, 'lazy-fetch');
  for (const [key, value] of [
    ['core.repositoryformatversion', '1'],
    ['extensions.partialClone', 'origin'],
    ['remote.origin.promisor', 'true'],
    ['remote.origin.url', `ext::sh -c touch% ${marker}`],
    ['protocol.ext.allow', 'always'],
  ] as const)
    git('config', key, value);
  return handle(dir, markers);
}
