// A TypeScript entry (the test runner, `npm start`) bundled into out/run/<its path>.cjs, the way
// the shipped bundles are built; built again only when a file it was built from changed since.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForNode } from './bundle-node.mjs';
import { findRepoRoot } from './repoRoot.mjs';

const root = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Where `entry`'s bundle goes: named by the entry's path in the repo, so bench/run.ts and test/run.ts never share a file. */
export function bundlePath(entry) {
  return path.join(root, 'out', 'run', `${path.relative(root, path.resolve(entry)).replace(/\.ts$/, '')}.cjs`);
}

/** True when `entry`'s bundle exists and no file it was built from changed after it was written. */
export function bundleIsCurrent(entry) {
  const compiled = bundlePath(entry);
  const built = fs.statSync(compiled, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined || !fs.existsSync(`${compiled}.inputs.json`)) return false;
  // Beside the bundled files: how they are bundled, and the installed packages (their lockfile).
  const inputs = [...JSON.parse(fs.readFileSync(`${compiled}.inputs.json`, 'utf8')), 'scripts/bundle-node.mjs', 'scripts/sqlJsBuild.mjs', 'package-lock.json'];
  return inputs.every((input) => (fs.statSync(path.join(root, input), { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < built);
}

/** Bundles `entry` unless its bundle is current; returns the bundle's path. */
export async function bundleEntry(entry) {
  const compiled = bundlePath(entry);
  if (!bundleIsCurrent(entry)) {
    const name = path.relative(path.join(root, 'out', 'run'), compiled).replace(/\.cjs$/, '');
    const inputs = await bundleForNode({ [name]: path.resolve(entry) }, path.join(root, 'out', 'run'));
    fs.writeFileSync(`${compiled}.inputs.json`, JSON.stringify(inputs));
  }
  return compiled;
}
