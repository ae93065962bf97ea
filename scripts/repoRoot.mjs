// The repo root, found from a script's own location, whether it runs as written or bundled
// into out/ (where import.meta.url names the bundle).
import fs from 'node:fs';
import path from 'node:path';

/** The nearest folder above `start` with esbuild.mjs. */
export function findRepoRoot(start) {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'esbuild.mjs'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no repo root above ${start}`);
  }
}
