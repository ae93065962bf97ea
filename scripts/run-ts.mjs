#!/usr/bin/env node
// Runs a TypeScript entry (the test runner, `npm start`) by bundling it into out/run/<its path>.cjs first, so
// it runs the way the shipped bundles run. Usage: node scripts/run-ts.mjs <entry.ts> [args...]
import fs from 'node:fs';
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
const compiled = path.join(outdir, `${name}.cjs`);
// The bundle is built again only when a file it was built from changed since (a later
// `npm start` then starts at once).
const inputsFile = `${compiled}.inputs.json`;
if (!isCurrent(compiled, inputsFile)) {
  const inputs = await bundleForNode({ [name]: path.resolve(entry) }, outdir);
  fs.writeFileSync(inputsFile, JSON.stringify(inputs));
}
process.argv = [process.argv[0], compiled, ...args];
process.setSourceMapsEnabled(true);
createRequire(import.meta.url)(compiled);

/** True when `compiled` and its list of inputs exist and no input changed after it was written. */
function isCurrent(compiled, inputsFile) {
  const built = fs.statSync(compiled, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined || !fs.existsSync(inputsFile)) return false;
  const inputs = [...JSON.parse(fs.readFileSync(inputsFile, 'utf8')), 'scripts/bundle-node.mjs', 'package-lock.json'];
  return inputs.every((input) => (fs.statSync(path.join(root, input), { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < built);
}
