#!/usr/bin/env node
// Runs a TypeScript entry (the test runner, `npm start`) by bundling it into out/run/<its path>.cjs first, so
// it runs the way the shipped bundles run. Usage: node scripts/run-ts.mjs <entry.ts> [args...]
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForNode } from './bundle-node.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run-ts.mjs <entry.ts> [args...]');
  process.exit(2);
}
// Named by the entry's path in the repo, so bench/run.ts and test/run.ts never share a file.
const name = path.relative(root, path.resolve(entry)).replace(/\.ts$/, '');
const outdir = path.join(root, 'out', 'run');
await bundleForNode({ [name]: path.resolve(entry) }, outdir);
const compiled = path.join(outdir, `${name}.cjs`);
process.argv = [process.argv[0], compiled, ...args];
process.setSourceMapsEnabled(true);
createRequire(import.meta.url)(compiled);
