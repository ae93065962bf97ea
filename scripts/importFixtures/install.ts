// Installs a coding agent's current release from the npm registry into Braid's cache folder,
// once per version: `<cache>/import-tools/<package>@<version>/node_modules/.bin/<bin>`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheRoot } from '../toolchain.mjs';

/** A tool installed from npm: its version and the path of its command. */
export interface InstalledTool {
  readonly pkg: string;
  readonly version: string;
  readonly bin: string;
}

/** The version npm's `latest` tag names now (`wanted` pins one instead). */
function latestVersion(pkg: string, log: string): string {
  const out = run('npm', ['view', pkg, 'version', '--json'], process.cwd(), log);
  const version = JSON.parse(out) as unknown;
  if (typeof version !== 'string') throw new Error(`npm view ${pkg} version answered ${out.trim()}`);
  return version;
}

/**
 * The tool's current release, installed into the cache when not there yet. A folder is only
 * taken as installed once its command exists, so an interrupted install is redone.
 */
export function ensureTool(pkg: string, binName: string, log: string, wanted?: string): InstalledTool {
  const version = wanted ?? latestVersion(pkg, log);
  const folder = path.join(cacheRoot(), 'import-tools', `${pkg.replace('/', '+')}@${version}`);
  const bin = path.join(folder, 'node_modules', '.bin', binName);
  if (!fs.existsSync(bin)) {
    fs.rmSync(folder, { recursive: true, force: true });
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ private: true }) + '\n');
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${version}`], folder, log);
    if (!fs.existsSync(bin)) throw new Error(`npm installed ${pkg}@${version} but ${bin} is missing`);
  }
  return { pkg, version, bin };
}

/** Runs a command to its end, appending its output to the log; throws naming the log when it fails. */
export function run(command: string, args: readonly string[], cwd: string, log: string, env?: NodeJS.ProcessEnv): string {
  fs.appendFileSync(log, `\n$ ${command} ${args.join(' ')}\n`);
  try {
    const out = execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10 * 60_000 });
    fs.appendFileSync(log, out);
    return out;
  } catch (err) {
    const failed = err as { stdout?: string; stderr?: string; message: string };
    fs.appendFileSync(log, `${failed.stdout ?? ''}${failed.stderr ?? ''}\n${failed.message}\n`);
    throw new Error(`${command} ${args[0] ?? ''} failed (see ${log})`, { cause: err });
  }
}
