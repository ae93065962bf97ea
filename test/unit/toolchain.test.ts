import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { aptStatus, lockHolders, waitForLocks } from '../../scripts/aptPackages.mjs';
import { describeActivity, packagesInPlace, runLogged } from '../../scripts/installProgress.mjs';
import { StepReporter } from '../../scripts/stepReporter.mjs';
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

/** A reporter writing to a collector (a terminal or not), its log in the scratch folder. */
function reporter(tty: boolean, name: string): { steps: StepReporter; written: () => string; logFile: string } {
  let text = '';
  const logFile = path.join(scratch, `${name}.log`);
  const steps = new StepReporter({ logFile, stream: { write: (t: string) => (text += t), isTTY: tty }, tickMs: 20, quietMs: 60_000 });
  return { steps, written: () => text, logFile };
}

test('each step of a run is one line (what, how much, how long), its tools output only in the log', async () => {
  const { steps, written, logFile } = reporter(false, 'quiet');
  await steps.run('Node 24.21.0', (step) =>
    runLogged('sh', ['-c', 'for i in 1 2 3; do echo "npm http fetch GET 200 package-$i"; done; echo "gyp info ok" >&2; sleep 0.3'], {
      cwd: scratch,
      step,
      intervalMs: 20,
      measure: () => '31 MB',
    }),
  );
  await steps.run('Braid, installed into VS Code', async () => undefined);
  steps.close();
  const lines = written().split('\n').slice(0, -1);
  assert.equal(lines.length, 2, written());
  assert.match(lines[0]!, /^Node 24\.21\.0: done in \d+s \(31 MB\)$/);
  assert.match(lines[1]!, /^Braid, installed into VS Code: done in \d+s$/);
  const log = fs.readFileSync(logFile, 'utf8');
  assert.match(log, /npm http fetch GET 200 package-3/);
  assert.match(log, /gyp info ok/);
});

test('on a terminal the step line is rewritten in place while it runs, and ends as one line', async () => {
  const { steps, written } = reporter(true, 'tty');
  await steps.run('code-server 4.139.1', async (step) => {
    step.progress("VS Code's modules: 12 of 179");
    await new Promise((r) => setTimeout(r, 100));
  });
  steps.close();
  const text = written();
  assert.ok(text.includes("\r\x1b[Kcode-server 4.139.1: VS Code's modules: 12 of 179, 0s so far"), JSON.stringify(text));
  // What stays on the screen once the line is done: one line.
  const screen = text.split('\n').map((line) => line.split('\r').at(-1)!.replace('\x1b[K', ''));
  assert.equal(screen.length, 2, JSON.stringify(text));
  assert.equal(screen[1], '');
  assert.match(screen[0]!, /^code-server 4\.139\.1: done in \d+s \(VS Code's modules: 12 of 179\)$/);
});

test('a failed step says so on its line, and its error names the log file with the last lines its tools wrote', async () => {
  const { steps, written, logFile } = reporter(false, 'failing');
  await assert.rejects(
    steps.run('code-server 4.139.1', (step) => runLogged('sh', ['-c', 'echo building; echo "gyp ERR! missing krb5.h" >&2; exit 3'], { cwd: scratch, step })),
    (err: Error) => {
      assert.match(err.message, /^code-server 4\.139\.1 failed: sh .* failed with 3\nThe tools' output is in /);
      assert.ok(err.message.includes(logFile), err.message);
      assert.match(err.message, /gyp ERR! missing krb5\.h/);
      return true;
    },
  );
  steps.close();
  assert.match(written(), /^code-server 4\.139\.1: failed after \d+s\n$/);
  assert.match(fs.readFileSync(logFile, 'utf8'), /building\ngyp ERR! missing krb5\.h/);
});

test("progress counts a lockfile's packages in place, and reads apt-get's status lines", () => {
  const dir = path.join(scratch, 'lockfile');
  const lock = {
    packages: { '': {}, 'node_modules/a': {}, 'node_modules/@s/b': {}, 'node_modules/a/node_modules/c': {}, 'node_modules/@x/bin': { optional: true } },
  };
  fs.mkdirSync(path.join(dir, 'node_modules', '@s', 'b'), { recursive: true });
  assert.equal(packagesInPlace(dir), undefined);
  fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
  assert.deepEqual(packagesInPlace(dir), { present: 0, total: 3 });
  fs.writeFileSync(path.join(dir, 'node_modules', '@s', 'b', 'package.json'), '{}');
  assert.deepEqual(packagesInPlace(dir), { present: 1, total: 3 });
  assert.equal(aptStatus('dlstatus:1:12.5:Retrieving file 1 of 80\ndlstatus:1:40.1:Retrieving file 30 of 80\n'), 'downloading, 40%');
  assert.equal(aptStatus('pmstatus:chromium:75.3:Unpacking chromium (156.0)\n'), 'installing, 75%: Unpacking chromium (156.0)');
  assert.equal(aptStatus('Reading database ...\n'), undefined);
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
