#!/usr/bin/env node
// Runs a TypeScript entry (the test runner, `npm start`) by bundling it into out/run/<its path>.cjs first, so
// it runs the way the shipped bundles run. Usage: node scripts/run-ts.mjs <entry.ts> [args...]
import { createRequire } from 'node:module';
import { bundleEntry } from './bundleEntry.mjs';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run-ts.mjs <entry.ts> [args...]');
  process.exit(2);
}
const compiled = await bundleEntry(entry);
process.argv = [process.argv[0], compiled, ...args];
process.setSourceMapsEnabled(true);
createRequire(import.meta.url)(compiled);
