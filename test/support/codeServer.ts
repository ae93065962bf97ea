import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ensureToolchain } from '../../scripts/toolchain.mjs';

/** A code-server process serving one workspace folder on 127.0.0.1. */
export interface CodeServerHandle {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** Ends code-server and everything it started (its process group). */
  stop(): Promise<void>;
}

/** Folders of one profile: user data, extensions, and the XDG/TMP homes code-server writes to. */
export interface Profile {
  readonly root: string;
  readonly userData: string;
  readonly extensions: string;
  readonly home: string;
}

export const PUBLISHER_ID = 'braid-dev.braid';

/** Creates (or reuses) a profile under `root`, and merges `settings` into its user settings. */
export function prepareProfile(root: string, settings: Record<string, unknown>): Profile {
  const profile = { root, userData: path.join(root, 'user-data'), extensions: path.join(root, 'extensions'), home: path.join(root, 'home') };
  for (const dir of [profile.userData, profile.extensions, profile.home, path.join(profile.userData, 'User')]) fs.mkdirSync(dir, { recursive: true });
  for (const sub of ['config', 'data', 'cache', 'state', 'tmp']) fs.mkdirSync(path.join(profile.home, sub), { recursive: true });
  fs.writeFileSync(path.join(root, 'config.yaml'), 'auth: none\n');
  const settingsFile = path.join(profile.userData, 'User', 'settings.json');
  const existing = fs.existsSync(settingsFile) ? (JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>) : {};
  const merged = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    ...existing,
    ...settings,
  };
  fs.writeFileSync(settingsFile, JSON.stringify(merged, null, 2));
  return profile;
}

/** The environment code-server runs with: its own XDG homes and TMPDIR, so nothing lands in $HOME or /tmp. */
export function profileEnv(profile: Profile, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const toolchain = ensureToolchain();
  // The packaged extension must find its own worker bundles, not the ones the test runner built.
  const { BRAID_WORKER_DIR: _testWorkers, ...inherited } = process.env;
  return {
    ...inherited,
    PATH: `${path.dirname(toolchain.node)}${path.delimiter}${process.env.PATH ?? ''}`,
    XDG_CONFIG_HOME: path.join(profile.home, 'config'),
    XDG_DATA_HOME: path.join(profile.home, 'data'),
    XDG_CACHE_HOME: path.join(profile.home, 'cache'),
    XDG_STATE_HOME: path.join(profile.home, 'state'),
    TMPDIR: path.join(profile.home, 'tmp'),
    ...extra,
  };
}

/** Installs a .vsix into the profile's extensions folder with code-server's own installer. */
export function installExtension(profile: Profile, vsix: string): void {
  const toolchain = ensureToolchain();
  const result = spawnSync(
    toolchain.node,
    [toolchain.codeServer, '--install-extension', vsix, '--force', '--extensions-dir', profile.extensions, '--user-data-dir', profile.userData],
    {
      env: profileEnv(profile),
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`installing ${vsix} failed: ${result.stderr || result.stdout}`);
}

/** A free TCP port on 127.0.0.1, starting the search at `preferred` when given. */
export async function freePort(preferred = 0): Promise<number> {
  for (let port = preferred; ; port = port ? port + 1 : 0) {
    const found = await new Promise<number | undefined>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => {
        const { port: bound } = server.address() as net.AddressInfo;
        server.close(() => resolve(bound));
      });
    });
    if (found) return found;
    if (preferred && port > preferred + 100) port = -1; // give up on the range, take any
  }
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) killGroup(child, 'SIGKILL');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Starts code-server detached (its own process group) on `port`, logging to `logFile`, and
 * resolves once it answers HTTP. `stop()` ends the whole group, SIGKILL after 5 s.
 */
export async function startCodeServer(options: {
  profile: Profile;
  port: number;
  logFile: string;
  folder: string;
  env?: NodeJS.ProcessEnv;
  workspaceTrust?: boolean;
}): Promise<CodeServerHandle> {
  const toolchain = ensureToolchain();
  const { profile, port } = options;
  const log = fs.openSync(options.logFile, 'a');
  const child = spawn(
    toolchain.node,
    [
      toolchain.codeServer,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--user-data-dir',
      profile.userData,
      '--extensions-dir',
      profile.extensions,
      '--disable-telemetry',
      '--disable-update-check',
      // Workspace Trust is off unless a test is about it (then the folder opens in Restricted Mode).
      ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--ignore-last-opened',
      '--config',
      path.join(profile.root, 'config.yaml'),
      options.folder,
    ],
    { detached: true, stdio: ['ignore', log, log], env: profileEnv(profile, options.env) },
  );
  fs.closeSync(log);
  running.add(child);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    killGroup(child, 'SIGTERM');
    const exited = await Promise.race([
      new Promise<boolean>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(true) : child.once('exit', () => resolve(true)))),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000)),
    ]);
    if (!exited) killGroup(child, 'SIGKILL');
    // Children of the group (extension host, pty host) may outlive the leader for a moment.
    killGroup(child, 'SIGKILL');
    running.delete(child);
  };
  try {
    await waitForHttp(`${url}/healthz`, 60_000, child);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}; see ${options.logFile}`, { cause: err });
  }
  return { url, port, process: child, stop };
}

async function waitForHttp(url: string, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`code-server did not answer ${url} within ${timeoutMs / 1000} s`);
}
