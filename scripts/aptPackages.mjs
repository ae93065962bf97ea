// Debian packages through apt-get, waiting (with a message) while another package manager holds
// apt's or dpkg's lock instead of failing: a fresh machine often runs unattended upgrades just
// when the first `npm start` wants Chromium. apt-get's own DPkg::Lock::Timeout covers dpkg's
// locks only (`apt-get update` fails at once on the lists lock), so the wait is done here too.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { formatElapsed } from './stepReporter.mjs';

/** The locks apt-get takes: dpkg's frontend and database locks, the package lists', the archives'. */
export const APT_LOCKS = ['/var/lib/dpkg/lock-frontend', '/var/lib/dpkg/lock', '/var/lib/apt/lists/lock', '/var/cache/apt/archives/lock'];
/** How long to wait for another package manager before giving up (BRAID_APT_LOCK_WAIT_S overrides). */
const DEFAULT_WAIT_S = 900;

function hasDebPackage(name) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

/** The packages of `names` that are not installed. */
export function missingDebPackages(names) {
  return names.filter((name) => !hasDebPackage(name));
}

/**
 * The processes that hold a lock on one of `files` (from /proc/locks), other than this one, as
 * "apt-get (pid 123)". Empty when none does, or where /proc/locks does not exist.
 */
export function lockHolders(files) {
  const inodes = new Set();
  for (const file of files) {
    try {
      inodes.add(String(fs.statSync(file).ino));
    } catch {
      // no such lock file: nobody holds it
    }
  }
  let table;
  try {
    table = fs.readFileSync('/proc/locks', 'utf8');
  } catch {
    return [];
  }
  const holders = new Set();
  for (const line of table.split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 22480 fe:00:2295698 0 EOF" (a waiter's line starts with "->")
    const fields = line.trim().split(/\s+/);
    if (fields[1] === '->') continue;
    const pid = Number(fields[4]);
    const inode = fields[5]?.split(':')[2];
    if (!inode || !inodes.has(inode) || !Number.isInteger(pid) || pid === process.pid) continue;
    let name = 'a process';
    try {
      name = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      // gone meanwhile
    }
    holders.add(`${name} (pid ${pid})`);
  }
  return [...holders];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once no other process holds one of `files`, logging who does when it starts waiting
 * and every `reportMs` after; rejects at `deadline` (a time in ms) saying who still holds them.
 */
export async function waitForLocks(files, deadline, log, { pollMs = 1_000, reportMs = 30_000 } = {}) {
  const started = Date.now();
  let reported = 0;
  for (;;) {
    const holders = lockHolders(files);
    if (holders.length === 0) {
      if (reported) log(`the package manager's lock is free after ${formatElapsed(Date.now() - started)}`);
      return;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `${holders.join(', ')} still holds the package manager's lock after ${formatElapsed(Date.now() - started)}; wait for it to finish (or stop it) and run again`,
      );
    }
    if (!reported || Date.now() - reported >= reportMs) {
      log(
        `waiting for ${holders.join(', ')} to release the package manager's lock (${formatElapsed(Date.now() - started)} so far, giving up after ${formatElapsed(deadline - started)})`,
      );
      reported = Date.now();
    }
    await sleep(pollMs);
  }
}

/**
 * Runs apt-get with its output in the step's log (never on stdout: the provisioning child's
 * stdout carries only the toolchain's JSON to the e2e suite) and its progress, read from its
 * status descriptor, on the step's line; resolves with its exit code and stderr.
 */
function runAptGet(args, env, step) {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const [cmd, ...prefix] = asRoot ? ['apt-get'] : ['sudo', '-n', 'apt-get'];
  // sudo closes descriptors past stderr, so apt-get reports its progress only when run as root.
  const all = [...prefix, ...(asRoot ? ['-o', 'APT::Status-Fd=3'] : []), ...args];
  step.log(`$ ${cmd} ${all.join(' ')}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, all, { env, stdio: ['ignore', step.logFd, 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
      step.log(chunk.toString());
    });
    child.stdio[3].on('data', (chunk) => {
      const said = aptStatus(chunk.toString());
      if (said) step.progress(said);
    });
    child.once('error', (err) => reject(new Error(`cannot run ${cmd} (${err.message})`)));
    child.once('close', (code, signal) => resolve({ code: code ?? signal, stderr }));
  });
}

/**
 * The last progress apt-get reported on its status descriptor, as words: "downloading, 40%",
 * "installing, 75%: Unpacking chromium". Its lines are `dlstatus:<pkg>:<percent>:<what>` while
 * it downloads and `pmstatus:<pkg>:<percent>:<what>` while dpkg works.
 */
export function aptStatus(text) {
  let said;
  for (const line of text.split('\n')) {
    const [kind, , percent, ...what] = line.split(':');
    if ((kind !== 'dlstatus' && kind !== 'pmstatus') || !percent) continue;
    said = `${kind === 'dlstatus' ? 'downloading' : 'installing'}, ${Math.floor(Number(percent))}%${kind === 'pmstatus' && what.length ? `: ${what.join(':').trim()}` : ''}`;
  }
  return said;
}

/**
 * `apt-get <args>` that waits for another package manager's lock instead of failing: before each
 * try (and again when apt-get still lost the race for the lock) until the deadline.
 * @param {string[]} args
 * @param {number} deadline
 * @param {import('./stepReporter.mjs').Step} step
 */
export async function aptGet(args, deadline, step) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (;;) {
    await waitForLocks(APT_LOCKS, deadline, (line) => step.progress(line));
    const waitS = Math.max(1, Math.round((deadline - Date.now()) / 1000));
    const { code, stderr } = await runAptGet(['-o', `DPkg::Lock::Timeout=${waitS}`, ...args], env, step);
    if (code === 0) return;
    if (/Could not get lock|Unable to (acquire|lock)/i.test(stderr) && Date.now() < deadline) continue;
    throw new Error(`apt-get ${args.join(' ')} failed with ${code}`);
  }
}

/**
 * Installs the Debian packages of `names` that are missing, as a step of `reporter`; nothing
 * (and nothing said) when none is.
 * @param {string[]} names
 * @param {import('./stepReporter.mjs').StepReporter} reporter
 */
export async function ensureDebPackages(names, reporter) {
  const missing = missingDebPackages(names);
  if (missing.length === 0) return;
  const waitS = Number(process.env.BRAID_APT_LOCK_WAIT_S) || DEFAULT_WAIT_S;
  const deadline = Date.now() + waitS * 1000;
  await reporter.run(`Debian packages ${missing.join(', ')}`, async (step) => {
    step.progress('updating the package lists');
    await aptGet(['update', '-qq'], deadline, step);
    await aptGet(['install', '-y', '-qq', '--no-install-recommends', ...missing], deadline, step);
    step.progress(`${missing.length} installed`);
  });
}
