// Builds Braid: dist/extension.js (node/cjs, vscode external), dist/cli.js (node, runnable: version
// and help) with dist/cli-commands.js (every other command, loaded by cli.js when asked) and
// dist/cli-read.js (list, search, show and where alone, without the kernel),
// dist/providers-<family>.js (pi-ai's providers and their SDKs, a family's file loaded by both on
// the first request to one of its providers; scripts/lazyBundles.mjs),
// dist/toolWorker.js (the search tools' worker thread), dist/indexWorker.js (the index's worker
// thread, which makes pulled logs ready for the index),
// dist/webview.js + dist/webview-style.css (the Chat page) and dist/usage.js + dist/usage-style.css
// (the Usage page) for the browser, and copies sql.js's wasm next to them (the sql.js of
// scripts/sqlJsBuild.mjs, which opens index files in place).
// Flags: --production (minified, no source maps), --watch, --node-only (no browser bundles), --outdir DIR
// (instead of dist/; the tests build there). Metafiles go to out/meta/ (not with --outdir).
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { commandsOutside, families, mcpClientOutside, piAiLayout, providersBundle, providersEntryPoints, providersOutside } from './scripts/lazyBundles.mjs';
import { SQL_JS_WASM, sqlJsWithHostFiles } from './scripts/sqlJsBuild.mjs';

const argv = process.argv.slice(2);
const args = new Set(argv);
const production = args.has('--production');
const watch = args.has('--watch');
const nodeOnly = args.has('--node-only');
const root = path.dirname(new URL(import.meta.url).pathname);
const outdirArg = argv.includes('--outdir') ? argv[argv.indexOf('--outdir') + 1] : undefined;
const dist = outdirArg ? path.resolve(outdirArg) : path.join(root, 'dist');
const metaDir = outdirArg ? undefined : path.join(root, 'out', 'meta');
const piAi = piAiLayout(root);
const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;

/**
 * pi-ai's optional provider SDKs reach for packages we do not ship: the Mistral SDK imports
 * `@opentelemetry/api` only for optional tracing. Left external, the import fails only if that
 * code path ever runs, instead of breaking the bundle.
 */
const optionalExternals = ['@opentelemetry/api'];

const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
  define: { BRAID_VERSION: JSON.stringify(version) },
};

/** The node bundles' shared options: cjs for Node 20, with `import.meta.url` for the ESM-only kernel packages. */
const node = {
  ...common,
  outdir: dist,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: optionalExternals,
  inject: ['src/shims/import-meta-url.js'],
  define: { ...common.define, 'import.meta.url': 'import_meta_url' },
};

const builds = [
  {
    ...node,
    entryPoints: { extension: 'src/extension.ts' },
    external: ['vscode', ...optionalExternals],
    plugins: [providersOutside(piAi), mcpClientOutside, sqlJsWithHostFiles(root)],
  },
  {
    ...node,
    // The worker threads are started from both bundles by file name (dist/toolWorker.js, dist/indexWorker.js).
    // dist/mcp-client.js (the MCP SDK) is loaded by both main bundles when a server first starts.
    entryPoints: {
      cli: 'src/cli/main.ts',
      'cli-commands': 'src/cli/process.ts',
      'cli-read': 'src/cli/readProcess.ts',
      toolWorker: 'src/core/tools/worker/toolWorker.ts',
      indexWorker: 'src/core/index/indexWorker.ts',
      'mcp-client': 'src/core/setup/mcp/sdkClient.ts',
    },
    banner: { js: '#!/usr/bin/env node' },
    // import('./process') becomes a require() of dist/cli-commands.js: a real import() would take
    // Node's ESM loader, whose CommonJS lexer parses the whole bundle first (about 200 ms).
    supported: { 'dynamic-import': false },
    plugins: [commandsOutside, mcpClientOutside, providersOutside(piAi), sqlJsWithHostFiles(root)],
  },
  {
    ...node,
    entryPoints: providersEntryPoints(piAi),
    plugins: [providersBundle(piAi)],
  },
  nodeOnly || {
    ...common,
    entryPoints: {
      webview: 'media/src/main.ts',
      'webview-style': 'media/src/chat.css',
      usage: 'media/src/usage/main.ts',
      'usage-style': 'media/src/usage/usage.css',
    },
    outdir: dist,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    // The codicon font comes along with its stylesheet (imported by chat.css).
    loader: { '.ttf': 'file' },
    assetNames: '[name]',
  },
].filter((build) => build !== true);

function copyAssets() {
  fs.mkdirSync(dist, { recursive: true });
  fs.copyFileSync(path.join(root, 'node_modules/sql.js/dist', SQL_JS_WASM), path.join(dist, 'sql-wasm.wasm'));
  fs.chmodSync(path.join(dist, 'cli.js'), 0o755);
}

function writeMeta(name, result) {
  if (!metaDir) return;
  fs.mkdirSync(metaDir, { recursive: true });
  fs.writeFileSync(path.join(metaDir, `${name}.json`), JSON.stringify(result.metafile));
}

function reportSizes() {
  const browser = nodeOnly ? [] : ['webview.js', 'webview-style.css', 'usage.js', 'usage-style.css'];
  const providers = families(piAi).map((family) => `providers-${family}.js`);
  for (const file of [
    'extension.js',
    'cli.js',
    'cli-commands.js',
    'cli-read.js',
    'mcp-client.js',
    ...providers,
    'toolWorker.js',
    'indexWorker.js',
    ...browser,
    'sql-wasm.wasm',
  ]) {
    const size = fs.statSync(path.join(dist, file)).size;
    console.log(`  ${path.relative(root, path.join(dist, file)).padEnd(23)} ${(size / 1024).toFixed(1).padStart(8)} KiB`);
  }
}

if (watch) {
  const names = ['extension', 'cli', 'providers', 'webview'];
  const contexts = await Promise.all(
    builds.map((options, i) =>
      esbuild.context({
        ...options,
        plugins: [
          ...(options.plugins ?? []),
          {
            name: 'report',
            setup(build) {
              build.onEnd((result) => {
                if (result.metafile) writeMeta(names[i], result);
                if (i === 1 && result.errors.length === 0) copyAssets();
                console.log(`[watch] ${names[i]} built with ${result.errors.length} error(s)`);
              });
            },
          },
        ],
      }),
    ),
  );
  await Promise.all(contexts.map((ctx) => ctx.watch()));
  console.log('[watch] watching for changes');
} else {
  fs.rmSync(dist, { recursive: true, force: true });
  const results = await Promise.all(builds.map((options) => esbuild.build(options)));
  ['extension', 'cli', 'providers', 'webview'].slice(0, results.length).forEach((name, i) => writeMeta(name, results[i]));
  copyAssets();
  console.log(`built ${production ? 'production' : 'development'} bundles${outdirArg ? ` in ${dist}` : ''}:`);
  reportSizes();
}
