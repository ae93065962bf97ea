// Runs a long install step with its output kept aside and a progress line every so often: the
// time so far and what the step is doing, read from its processes (Linux's /proc: which package's
// folder they work in, and whether a compiler runs there). Elsewhere the line has the time only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Programs that mean a native module is being compiled. */
const COMPILERS = new Set(['cc1', 'cc1plus', 'cc', 'gcc', 'g++', 'c++', 'make', 'ld', 'as', 'node-gyp']);
/** Lines of the step's output kept for an error message. */
const KEPT_LINES = 40;

/** "4m 05s" */
export function formatElapsed(ms) {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

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
 * Runs `cmd` with its output kept (the last lines go into the error when it fails) and logs
 * `label`, the time so far and the current activity every `intervalMs`.
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv, label: string, log: (line: string) => void, intervalMs?: number }} options
 * @returns {Promise<void>}
 */
export function runWithProgress(cmd, args, options) {
  const { label, log, intervalMs = 20_000 } = options;
  const started = Date.now();
  const child = spawn(cmd, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const kept = [];
  const keep = (chunk) => {
    kept.push(
      ...chunk
        .toString()
        .split('\n')
        .filter((line) => line.trim()),
    );
    kept.splice(0, Math.max(0, kept.length - KEPT_LINES));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const timer = setInterval(() => {
    const activity = child.pid === undefined ? undefined : describeActivity(child.pid, options.cwd);
    log(`${label}: ${formatElapsed(Date.now() - started)} so far${activity ? `, ${activity}` : ''}`);
  }, intervalMs);
  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      clearInterval(timer);
      reject(new Error(`${label}: cannot run ${cmd} (${err.message})`));
    });
    child.once('close', (code, signal) => {
      clearInterval(timer);
      if (code === 0) {
        log(`${label}: done in ${formatElapsed(Date.now() - started)}`);
        resolve();
      } else {
        reject(new Error(`${label}: ${cmd} ${args.join(' ')} failed with ${code ?? signal}; its last output:\n${kept.join('\n')}`));
      }
    });
  });
}
