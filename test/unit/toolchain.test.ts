import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { lockHolders, waitForLocks } from '../../scripts/aptPackages.mjs';
import { describeActivity, runWithProgress } from '../../scripts/installProgress.mjs';
import { nodeVersionProblem } from '../../scripts/nodeVersion.mjs';

// The provisioning of `npm start` and the e2e suite: waiting for another package manager's lock,
// progress lines during the long build, the Node version check. Real processes and real locks.
const linux = process.platform === 'linux' && fs.existsSync('/proc/locks');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-toolchain-'));
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** A process that holds `file` locked (flock) until `release` exists. */
async function holdLock(file: string, release: string): Promise<ChildProcess> {
  fs.writeFileSync(file, '');
  const child = spawn('flock', [file, 'sh', '-c', `while [ ! -e '${release}' ]; do sleep 0.05; done`], { stdio: 'ignore' });
  children.push(child);
  while (lockHolders([file]).length === 0) await new Promise((r) => setTimeout(r, 20));
  return child;
}

test(
  'the wait for a package manager lock names its holder, and ends once the holder lets go',
  { skip: !linux || !fs.existsSync('/usr/bin/flock') },
  async () => {
    const lock = path.join(scratch, 'lock-frontend');
    const release = path.join(scratch, 'release-1');
    const holder = await holdLock(lock, release);
    assert.deepEqual(lockHolders([lock]), [`flock (pid ${holder.pid})`]);
    const lines: string[] = [];
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    await waitForLocks(
      [lock],
      Date.now() + 120_000,
      (line: string) => {
        lines.push(line);
        fs.writeFileSync(release, ''); // the holder finishes once we said we wait
      },
      { pollMs: 20 },
    );
    await exited;
    assert.match(lines[0]!, new RegExp(`^waiting for flock \\(pid ${holder.pid}\\) to release the package manager's lock`));
    assert.match(lines.at(-1)!, /lock is free after/);
    assert.deepEqual(lockHolders([lock]), []);
  },
);

test('a lock still held at the deadline fails with one sentence naming the holder', { skip: !linux || !fs.existsSync('/usr/bin/flock') }, async () => {
  const lock = path.join(scratch, 'lists-lock');
  const release = path.join(scratch, 'release-2');
  const holder = await holdLock(lock, release);
  await assert.rejects(
    waitForLocks([lock], Date.now() + 200, () => {}, { pollMs: 20 }),
    (err: Error) => {
      assert.match(err.message, new RegExp(`^flock \\(pid ${holder.pid}\\) still holds the package manager's lock after .*; wait for it to finish`));
      return true;
    },
  );
  fs.writeFileSync(release, '');
});

test('a lock file nobody holds (or that does not exist) is no reason to wait', async () => {
  const lock = path.join(scratch, 'free-lock');
  fs.writeFileSync(lock, '');
  assert.deepEqual(lockHolders([lock, path.join(scratch, 'missing')]), []);
  await waitForLocks([lock], Date.now(), () => assert.fail('nothing to wait for'));
});

test('progress names the package whose native code compiles, and the one whose install script runs', { skip: !linux }, async () => {
  const pkg = path.join(scratch, 'install', 'node_modules', '@vscode', 'sqlite3', 'build');
  const other = path.join(scratch, 'install', 'node_modules', 'kerberos');
  fs.mkdirSync(pkg, { recursive: true });
  fs.mkdirSync(other, { recursive: true });
  // The compiler is recognised by its program name, as /proc/<pid>/comm gives it.
  const bin = path.join(scratch, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.symlinkSync('/bin/sleep', path.join(bin, 'cc1plus'));
  const stop = path.join(scratch, 'stop-activity');
  const compilerPid = path.join(scratch, 'compiler.pid');
  const root = spawn(
    'sh',
    ['-c', `(cd '${other}' && while [ ! -e '${stop}' ]; do sleep 0.05; done) & (cd '${pkg}' && exec '${bin}/cc1plus' 60) & echo $! > '${compilerPid}'; wait`],
    { stdio: 'ignore' },
  );
  children.push(root);
  let seen: string | undefined;
  for (let i = 0; i < 200 && !seen?.includes('compiling'); i++) {
    await new Promise((r) => setTimeout(r, 25));
    seen = describeActivity(root.pid!, path.join(scratch, 'install'));
  }
  assert.equal(seen, 'compiling @vscode/sqlite3 (native code)');
  // Without the compiler, the script that runs in a package's folder is what shows.
  while (!/^\d+\n$/.test(fs.existsSync(compilerPid) ? fs.readFileSync(compilerPid, 'utf8') : '')) await new Promise((r) => setTimeout(r, 20));
  process.kill(Number(fs.readFileSync(compilerPid, 'utf8')), 'SIGTERM');
  for (let i = 0; i < 200 && seen?.includes('compiling'); i++) {
    await new Promise((r) => setTimeout(r, 25));
    seen = describeActivity(root.pid!, path.join(scratch, 'install'));
  }
  assert.equal(seen, 'running the install scripts of kerberos');
  fs.writeFileSync(stop, '');
});

test('a long install step logs its time and activity until it ends, and a failure carries its last output', async () => {
  const started = path.join(scratch, 'progress-seen');
  const lines: string[] = [];
  await runWithProgress('sh', ['-c', `while [ ! -e '${started}' ]; do sleep 0.05; done`], {
    cwd: scratch,
    label: 'code-server 4.139.1',
    intervalMs: 50,
    log: (line: string) => {
      lines.push(line);
      fs.writeFileSync(started, '');
    },
  });
  assert.match(lines[0]!, /^code-server 4\.139\.1: \d+s so far/);
  assert.match(lines.at(-1)!, /^code-server 4\.139\.1: done in \d+s$/);

  await assert.rejects(
    runWithProgress('sh', ['-c', 'echo building; echo "gyp ERR! missing krb5.h" >&2; exit 3'], { cwd: scratch, label: 'step', log: () => {} }),
    (err: Error) => {
      assert.match(err.message, /^step: sh .* failed with 3; its last output:\n/);
      assert.match(err.message, /gyp ERR! missing krb5\.h/);
      return true;
    },
  );
});

test('npm start and CI name the Node they need in one sentence when this one is older', () => {
  assert.equal(nodeVersionProblem('20.19.0', '>=20.19'), undefined);
  assert.equal(nodeVersionProblem('v22.3.1', '>=20.19'), undefined);
  assert.equal(
    nodeVersionProblem('20.18.3', '>=20.19'),
    'Braid needs Node 20.19 or later and this is Node 20.18.3: install a newer Node (the current LTS will do), then run npm ci again.',
  );
  assert.match(nodeVersionProblem('18.20.4', '>=20.19')!, /this is Node 18\.20\.4/);
});
