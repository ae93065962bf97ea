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
 * Bundles node entry points into `outdir` as .cjs files with inline source maps; returns the
 * files the bundles were built from (relative to the repo root).
 * @returns {Promise<string[]>}
 */
export async function bundleForNode(entryPoints, outdir) {
  const result = await esbuild.build({
    entryPoints,
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
  return Object.keys(result.metafile.inputs).filter((input) => !input.includes(':'));
}
