// Braid's own dependencies for `npm start` and `npm test` on a fresh clone: `npm ci` when
// node_modules is missing or older than the lockfile, shown as one step (how many of the
// lockfile's packages are in place, how long so far), npm's output in the setup log.
// Imports nothing outside Node: it runs before anything is installed.
import fs from 'node:fs';
import path from 'node:path';
import { packagesInPlace, runLogged } from './installProgress.mjs';
import { withoutNpmVariables } from './toolchain.mjs';

const mtime = (file) => fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs;

/**
 * True when `root`'s node_modules is what its lockfile says: npm writes node_modules/.package-lock.json
 * last, after every package is in place, so it is newer than package.json and the lockfile.
 */
export function dependenciesInstalled(root) {
  const installed = mtime(path.join(root, 'node_modules', '.package-lock.json'));
  if (installed === undefined) return false;
  return ['package.json', 'package-lock.json'].every((name) => (mtime(path.join(root, name)) ?? Infinity) <= installed);
}

/** Runs `npm ci` in `root` as a step of `reporter` when the dependencies are not installed. */
export async function ensureDependencies(root, reporter) {
  if (dependenciesInstalled(root)) return;
  await reporter.run("Braid's dependencies (npm ci)", (step) =>
    runLogged('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: root,
      env: withoutNpmVariables(process.env),
      step,
      measure: () => {
        const count = packagesInPlace(root);
        return count && `${count.present} of ${count.total} packages`;
      },
    }),
  );
}
