// What a long install step is doing, for its progress line: read from its processes (Linux's
// /proc: which package's folder they work in, and whether a compiler runs there), and how many of
// a lockfile's packages are in place. Elsewhere the line has the time only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Programs that mean a native module is being compiled. */
const COMPILERS = new Set(['cc1', 'cc1plus', 'cc', 'gcc', 'g++', 'c++', 'make', 'ld', 'as', 'node-gyp']);
export { formatElapsed } from './stepReporter.mjs';

/** Every process under `pid` (not itself), from /proc; empty where there is no /proc. */
function descendants(pid) {
  let entries;
  try {
    entries = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const children = new Map();
  for (const name of entries) {
    try {
      // The command name is in parentheses and may hold spaces; the parent pid follows it.
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(parent) ?? [];
      list.push(Number(name));
      children.set(parent, list);
    } catch {
      // gone meanwhile
    }
  }
  const found = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The package a folder belongs to: the last `node_modules/<name>` (or `@scope/name`) in its path. */
export function packageOf(dir) {
  const parts = dir.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return undefined;
  return parts[at + 1].startsWith('@') && parts[at + 2] ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1];
}

/**
 * What the processes under `pid` are doing inside `dir`: compiling a package, running its
 * install script, or fetching packages. Undefined when /proc says nothing.
 */
export function describeActivity(pid, dir) {
  const compiling = new Set();
  const scripts = new Set();
  let any = false;
  for (const child of descendants(pid)) {
    let cwd;
    let comm;
    try {
      cwd = fs.readlinkSync(`/proc/${child}/cwd`);
      comm = fs.readFileSync(`/proc/${child}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    any = true;
    if (!cwd.startsWith(dir)) continue;
    const pkg = packageOf(cwd.replace(/\/build(\/.*)?$/, ''));
    if (!pkg) continue;
    if (COMPILERS.has(comm)) compiling.add(pkg);
    else scripts.add(pkg);
  }
  if (compiling.size > 0) return `compiling ${[...compiling].join(', ')} (native code)`;
  const others = [...scripts].filter((p) => !compiling.has(p));
  if (others.length > 0) return `running the install scripts of ${others.join(', ')}`;
  return any ? 'downloading and unpacking packages' : undefined;
}

/**
 * Runs `cmd` as (part of) `step`: its output goes to the step's log file, and every `intervalMs`
 * the step's line says what it is doing: `measure()` when it has something to say (how much is
 * done), else the activity read from its processes. Rejects with the exit code when it fails.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv, step: import('./stepReporter.mjs').Step, measure?: () => string | undefined, intervalMs?: number }} options
 * @returns {Promise<void>}
 */
export function runLogged(cmd, args, options) {
  const { step, intervalMs = 2_000 } = options;
  step.log(`$ ${cmd} ${args.join(' ')}\n`);
  const child = spawn(cmd, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', step.logFd, step.logFd] });
  const timer = setInterval(() => {
    const activity = child.pid === undefined ? undefined : describeActivity(child.pid, options.cwd);
    const measured = options.measure?.();
    const text = [measured, activity?.startsWith('compiling') ? activity : measured ? undefined : activity].filter(Boolean).join(', ');
    if (text) step.progress(text);
  }, intervalMs);
  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      clearInterval(timer);
      reject(new Error(`cannot run ${cmd} (${err.message})`));
    });
    child.once('close', (code, signal) => {
      clearInterval(timer);
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} failed with ${code ?? signal}`));
    });
  });
}

/**
 * How many of the packages the lockfile (or shrinkwrap) in `dir` names are in place, or undefined
 * before there is one. npm puts each package in its final folder as it goes.
 */
export function packagesInPlace(dir) {
  let lock;
  for (const name of ['npm-shrinkwrap.json', 'package-lock.json']) {
    try {
      lock = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
      break;
    } catch {
      // not this one
    }
  }
  if (!lock) return undefined;
  // Optional packages (other systems' binaries, extras that may fail) are left out: npm may skip them.
  const folders = Object.entries(lock.packages ?? {})
    .filter(([key, entry]) => key.includes('node_modules/') && !entry.optional)
    .map(([key]) => key);
  if (folders.length === 0) return undefined;
  const present = folders.filter((key) => fs.existsSync(path.join(dir, key, 'package.json'))).length;
  return { present, total: folders.length };
}

/** The packages (scoped ones counted one by one) directly in `dir`/node_modules. */
export function packagesIn(dir) {
  let count = 0;
  for (const name of safeList(path.join(dir, 'node_modules'))) {
    if (name.startsWith('.')) continue;
    count += name.startsWith('@') ? safeList(path.join(dir, 'node_modules', name)).length : 1;
  }
  return count;
}

function safeList(dir) {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** The megabytes of the files under `dir`, as "31 MB". */
export function megabytesIn(dir) {
  let bytes = 0;
  const walk = (folder) => {
    let entries;
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        try {
          bytes += fs.statSync(full).size;
        } catch {
          // gone meanwhile
        }
      }
    }
  };
  walk(dir);
  return `${Math.round(bytes / 1e6)} MB`;
}
