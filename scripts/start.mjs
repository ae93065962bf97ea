#!/usr/bin/env node
// `npm start [folder] [--port N]` on a clone with nothing installed yet: checks Node, installs
// Braid's dependencies when they are missing or stale and bundles scripts/start.ts when it
// changed (a progress line each), then runs it. Imports nothing outside Node before that.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDependencies } from './dependencies.mjs';
import { exitIfNodeTooOld } from './nodeVersion.mjs';
import { findRepoRoot } from './repoRoot.mjs';
import { StepReporter } from './stepReporter.mjs';
import { cacheRoot, provisioned, setupLogFile } from './toolchain.mjs';

/** What a first run costs on a 2-core machine, as measured (README.md says the same). */
const FIRST_RUN_COST = 'about 10 minutes on a busy 2-core machine, 7 of them building code-server';

exitIfNodeTooOld();
const root = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
const entry = path.join(root, 'scripts', 'start.ts');
const steps = new StepReporter({ logFile: setupLogFile() });
if (!provisioned())
  console.log(
    `First run: installing Braid's dependencies and what a real VS Code needs (into ${cacheRoot()}): about 410 MB of downloads, more where Chromium is missing; ${FIRST_RUN_COST}. Later starts reuse them and take seconds.`,
  );
let compiled;
try {
  await ensureDependencies(root, steps);
  // Imported only now: bundling needs esbuild, which the step above installs.
  const { bundleEntry, bundleIsCurrent } = await import('./bundleEntry.mjs');
  compiled = bundleIsCurrent(entry) ? await bundleEntry(entry) : await steps.run("npm start's script, bundled", () => bundleEntry(entry));
} catch (err) {
  process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
} finally {
  steps.close();
}
const child = spawn(process.execPath, ['--enable-source-maps', compiled, ...process.argv.slice(2)], { stdio: 'inherit' });
// Ctrl+C reaches both processes; start.ts stops code-server and exits, and this one follows.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.once('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 143)));
