#!/usr/bin/env node
// `npm start [folder] [--port N]` on a clone with nothing installed yet: checks Node, installs
// Braid's dependencies when they are missing or stale (one progress line), then runs
// scripts/start.ts, which needs them. Imports nothing outside Node.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDependencies } from './dependencies.mjs';
import { exitIfNodeTooOld } from './nodeVersion.mjs';
import { findRepoRoot } from './repoRoot.mjs';
import { StepReporter } from './stepReporter.mjs';
import { setupLogFile } from './toolchain.mjs';

exitIfNodeTooOld();
const root = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
try {
  await ensureDependencies(root, new StepReporter({ logFile: setupLogFile() }));
} catch (err) {
  process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
const child = spawn(process.execPath, [path.join(root, 'scripts', 'run-ts.mjs'), path.join(root, 'scripts', 'start.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
});
// Ctrl+C reaches both processes; start.ts stops code-server and exits, and this one follows.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.once('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 143)));
