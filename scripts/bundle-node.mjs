// Bundles TypeScript entry points for Node the way the product is bundled: everything inlined
// (the kernel packages are ESM-only, this repo is CommonJS) except what Node must load itself.
import * as esbuild from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRepoRoot } from './repoRoot.mjs';
import { sqlJsWithHostFiles } from './sqlJsBuild.mjs';

const root = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Packages left to Node: CommonJS already (playwright-core), native (esbuild), loading its own config and plugins (eslint), or absent. */
export const NODE_EXTERNALS = ['vscode', 'esbuild', 'playwright-core', 'eslint', '@opentelemetry/api'];

/**
 * Entry points bundled per esbuild call. One call holds every output (with its inline source map)
 * in memory until it ends: the whole unit suite at once took over 15 GB; a batch takes a few hundred MB.
 */
const BATCH = 16;
// esbuild's service is a Go program: a soft memory limit makes it collect garbage between
// batches instead of growing (it inherits this environment when the first build starts it).
process.env.GOMEMLIMIT ??= '1GiB';

/**
 * Bundles node entry points into `outdir` as .cjs files with inline source maps, a batch at a
 * time; returns the files the bundles were built from (relative to the repo root).
 * @returns {Promise<string[]>}
 */
export async function bundleForNode(entryPoints, outdir) {
  const entries = Object.entries(entryPoints);
  const inputs = new Set();
  for (let i = 0; i < entries.length; i += BATCH) {
    const result = await esbuild.build({
      entryPoints: Object.fromEntries(entries.slice(i, i + BATCH)),
      outdir,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'inline',
      outExtension: { '.js': '.cjs' },
      external: NODE_EXTERNALS,
      inject: [path.join(root, 'src/shims/import-meta-url.js')],
      define: { 'import.meta.url': 'import_meta_url', BRAID_VERSION: '"test"' },
      logLevel: 'warning',
      plugins: [sqlJsWithHostFiles(root)],
      metafile: true,
      absWorkingDir: root,
    });
    for (const input of Object.keys(result.metafile.inputs)) if (!input.includes(':')) inputs.add(input);
  }
  return [...inputs];
}

/** Ends esbuild's service process, and the memory it keeps, once nothing more is to be bundled. */
export async function stopBundling() {
  await esbuild.stop();
}
