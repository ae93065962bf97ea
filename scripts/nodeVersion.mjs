// The Node version check of `npm start` and CI: the README promises the Node range package.json's
// `engines.node` names (">=X.Y"); an older Node fails later in obscure ways (undici, the bundles).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRepoRoot } from './repoRoot.mjs';

/** package.json's `engines.node`. */
export function requiredNode() {
  const root = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
  return JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node;
}

/** A one-sentence problem when `version` (such as "20.18.0") is below `range` (">=20.19"), else undefined. */
export function nodeVersionProblem(version, range) {
  const wanted = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!wanted) throw new Error(`engines.node "${range}" is not of the form >=X.Y`);
  const have = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const need = Number(wanted[i + 1] ?? 0);
    if ((have[i] ?? 0) > need) return undefined;
    if ((have[i] ?? 0) < need) {
      return `Braid needs Node ${range.replace(/^>=\s*/, '')} or later and this is Node ${version.replace(/^v/, '')}: install a newer Node (the current LTS will do), then run npm ci again.`;
    }
  }
  return undefined;
}

/** Exits 1 with the problem on stderr when this Node is older than package.json asks. */
export function exitIfNodeTooOld() {
  const problem = nodeVersionProblem(process.versions.node, requiredNode());
  if (!problem) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
