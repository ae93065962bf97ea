#!/usr/bin/env node
// `npm test`'s first step: Braid's dependencies installed (`npm ci`, one progress line) when
// node_modules is missing or older than the lockfile, so a fresh clone needs no other command.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDependencies } from './dependencies.mjs';
import { exitIfNodeTooOld } from './nodeVersion.mjs';
import { findRepoRoot } from './repoRoot.mjs';
import { StepReporter } from './stepReporter.mjs';
import { setupLogFile } from './toolchain.mjs';

exitIfNodeTooOld();
try {
  await ensureDependencies(findRepoRoot(path.dirname(fileURLToPath(import.meta.url))), new StepReporter({ logFile: setupLogFile() }));
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
