// The parts of the node bundles that load on first use, each its own file in dist/:
// - dist/providers.js: pi-ai's provider modules and their SDKs (OpenAI, Anthropic, Google, Mistral),
//   about three quarters of what the bundles held. pi-ai already imports each provider with import()
//   when its first request starts (providers/register-builtins.js); esbuild would inline them all.
//   The main bundles load providers.js there instead, and hand it the pi-ai modules the providers
//   share with the rest of the kernel (models, event streams, ...) so each exists once, as before.
// - dist/cli-commands.js: the CLI's commands; dist/cli.js answers `version` and `help` alone.
import fs from 'node:fs';
import path from 'node:path';

/** Where the bundles find each other at run time: next to themselves. */
const PROVIDERS_FILE = 'providers.js';

/**
 * pi-ai's layout: `dist/providers/register-builtins.js` imports each provider with `import("./<name>.js")`,
 * and the providers import pi-ai's own modules from `../`.
 */
export function piAiLayout(root) {
  // Real paths: esbuild names the files it resolves by them (node_modules may be a link).
  const dist = fs.realpathSync(path.join(root, 'node_modules', '@mariozechner', 'pi-ai', 'dist'));
  const providersDir = path.join(dist, 'providers');
  const registry = path.join(providersDir, 'register-builtins.js');
  const lazy = [...fs.readFileSync(registry, 'utf8').matchAll(/import\("(\.\/[\w-]+\.js)"\)/g)].map((m) => m[1]);
  if (lazy.length === 0) throw new Error(`no provider imported with import() in ${registry}: pi-ai's layout changed; see scripts/lazyBundles.mjs`);
  const shared = new Set();
  for (const file of fs.readdirSync(providersDir).filter((f) => f.endsWith('.js'))) {
    for (const m of fs.readFileSync(path.join(providersDir, file), 'utf8').matchAll(/(?:from\s*|import\()"\.\.\/([\w./-]+\.js)"/g)) shared.add(m[1]);
  }
  return { dist, providersDir, registry, lazy, shared: [...shared].sort() };
}

/**
 * For the main bundles: pi-ai's `import("./<provider>.js")` becomes a load of dist/providers.js,
 * handed the main bundle's own instances of the pi-ai modules the providers import.
 */
export function providersOutside(layout) {
  return {
    name: 'providers-outside',
    setup(build) {
      // src/core/model/preloadProviders.ts: here it loads dist/providers.js ahead of a first request.
      build.onLoad({ filter: /[\\/]src[\\/]core[\\/]model[\\/]preloadProviders\.ts$/ }, () => ({
        // A failure is left to the first request, which reports it as a failed model call.
        contents: `exports.preloadProviders = () => { try { require(require("node:path").join(__dirname, ${JSON.stringify(PROVIDERS_FILE)})); } catch {} };`,
        loader: 'js',
      }));
      build.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) => {
        if (args.kind !== 'dynamic-import' || args.importer !== layout.registry) return undefined;
        if (!layout.lazy.includes(args.path)) return { errors: [{ text: `pi-ai imports provider ${args.path}, which is not in dist/${PROVIDERS_FILE}` }] };
        return { path: args.path, namespace: 'braid-provider' };
      });
      build.onLoad({ filter: /.*/, namespace: 'braid-provider' }, (args) => {
        const shared = layout.shared.map((name) => `${JSON.stringify(name)}: require(${JSON.stringify(path.join(layout.dist, name))})`);
        return {
          contents: [
            `const providers = require(require("node:path").join(__dirname, ${JSON.stringify(PROVIDERS_FILE)}));`,
            `module.exports = providers.load(${JSON.stringify(args.path)}, { ${shared.join(', ')} });`,
          ].join('\n'),
          loader: 'js',
          resolveDir: layout.providersDir,
        };
      });
    },
  };
}

/**
 * The entry of dist/providers.js: `load(name, shared)` runs one provider module (each is
 * initialised on its first load only) after taking the pi-ai modules the main bundle handed over.
 */
function providersEntry(layout) {
  const table = layout.lazy.map((name) => `  ${JSON.stringify(name)}: () => require(${JSON.stringify(path.join(layout.providersDir, name))}),`);
  return [
    'const shared = require("braid-shared:registry");',
    'const providers = {',
    ...table,
    '};',
    'exports.load = (name, modules) => {',
    '  shared.set(modules);',
    '  return providers[name]();',
    '};',
  ].join('\n');
}

const SHARED_REGISTRY = [
  'let modules;',
  'exports.set = (m) => { modules = m; };',
  'exports.get = (name) => {',
  "  if (!modules || !(name in modules)) throw new Error(`dist/providers.js was not handed pi-ai's ${name}`);",
  '  return modules[name];',
  '};',
].join('\n');

/**
 * For dist/providers.js: its entry, and every import of a pi-ai module outside `providers/` taken
 * from what the main bundle handed over instead of bundled a second time.
 */
export function providersBundle(layout) {
  return {
    name: 'providers-bundle',
    setup(build) {
      build.onResolve({ filter: /^braid-providers$/ }, () => ({ path: 'entry', namespace: 'braid-providers' }));
      build.onResolve({ filter: /^braid-shared:registry$/ }, () => ({ path: 'registry', namespace: 'braid-shared' }));
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (!args.importer.startsWith(layout.providersDir + path.sep)) return undefined;
        const target = path.resolve(args.resolveDir, args.path);
        if (target.startsWith(layout.providersDir + path.sep) || !target.startsWith(layout.dist + path.sep)) return undefined;
        const name = path.relative(layout.dist, target).split(path.sep).join('/');
        if (!layout.shared.includes(name)) return { errors: [{ text: `a pi-ai provider imports ${name}, which the main bundles do not hand over` }] };
        return { path: name, namespace: 'braid-shared' };
      });
      build.onLoad({ filter: /.*/, namespace: 'braid-providers' }, () => ({ contents: providersEntry(layout), loader: 'js', resolveDir: layout.providersDir }));
      build.onLoad({ filter: /.*/, namespace: 'braid-shared' }, (args) => ({
        contents: args.path === 'registry' ? SHARED_REGISTRY : `module.exports = require("braid-shared:registry").get(${JSON.stringify(args.path)});`,
        loader: 'js',
        resolveDir: layout.dist,
      }));
    },
  };
}

/**
 * For dist/cli.js: its import of `./process` (everything past `version` and `help`) stays a
 * run-time load of dist/cli-commands.js, a bundle of its own.
 */
export const commandsOutside = {
  name: 'cli-commands-outside',
  setup(build) {
    build.onResolve({ filter: /^\.\/process$/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer.endsWith(path.join('src', 'cli', 'main.ts')) ? { path: './cli-commands.js', external: true } : undefined,
    );
  },
};
