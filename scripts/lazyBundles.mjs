// The parts of the node bundles that load on first use, each its own file in dist/:
// - dist/providers-<family>.js: pi-ai's provider modules and their SDKs, one file per family of
//   providers that share an SDK (openai: the OpenAI, Azure and Codex ones; google: Gemini and
//   Vertex; anthropic; mistral), together about three quarters of what the bundles held. pi-ai
//   already imports each provider with import() when its first request starts
//   (providers/register-builtins.js); esbuild would inline them all. The main bundles load the
//   provider's family file there instead, and hand it the pi-ai modules the providers share with
//   the rest of the kernel (models, event streams, ...) so each exists once, as before. A first
//   request to an OpenAI-compatible server reads the OpenAI family's file only, not the Mistral
//   and Google SDKs (most of the bytes).
// - dist/cli-commands.js: the CLI's commands; dist/cli-read.js: the read-only ones alone (list,
//   search, show, where), without the kernel; dist/cli.js answers `version` and `help` alone.
// - dist/mcp-client.js: the MCP SDK (with its schema and HTTP libraries) and the one module of Braid
//   that uses it, loaded by both main bundles when an MCP server first starts.
import fs from 'node:fs';
import path from 'node:path';

/**
 * The family a provider module (`./<name>.js`) or a model's api (`openai-completions`) belongs to:
 * the file of its family is `providers-<family>.js`, next to the main bundles.
 */
export function providerFamily(name) {
  const base = name.replace(/^\.\//, '').replace(/\.js$/, '');
  if (base.startsWith('openai') || base.startsWith('azure-openai')) return 'openai';
  if (base.startsWith('google')) return 'google';
  return base.split('-')[0];
}

const familyFile = (family) => `providers-${family}.js`;

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
      // src/core/model/preloadProviders.ts: here it loads the family file of a model's api ahead of
      // its first request; a failure is left to that request, which reports it as a failed model call.
      build.onLoad({ filter: /[\\/]src[\\/]core[\\/]model[\\/]preloadProviders\.ts$/ }, () => ({
        contents: [
          `const families = new Set(${JSON.stringify(families(layout))});`,
          `const familyOf = ${providerFamily.toString()};`,
          'exports.preloadProviders = (api) => {',
          '  const family = familyOf(api);',
          '  if (!families.has(family)) return;',
          `  try { require(require("node:path").join(__dirname, \`providers-\${family}.js\`)); } catch {}`,
          '};',
        ].join('\n'),
        loader: 'js',
      }));
      build.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) => {
        if (args.kind !== 'dynamic-import' || args.importer !== layout.registry) return undefined;
        if (!layout.lazy.includes(args.path)) return { errors: [{ text: `pi-ai imports provider ${args.path}, which no providers file of dist/ holds` }] };
        return { path: args.path, namespace: 'braid-provider' };
      });
      build.onLoad({ filter: /.*/, namespace: 'braid-provider' }, (args) => {
        const shared = layout.shared.map((name) => `${JSON.stringify(name)}: require(${JSON.stringify(path.join(layout.dist, name))})`);
        return {
          contents: [
            `const providers = require(require("node:path").join(__dirname, ${JSON.stringify(familyFile(providerFamily(args.path)))}));`,
            `module.exports = providers.load(${JSON.stringify(args.path)}, { ${shared.join(', ')} });`,
          ].join('\n'),
          loader: 'js',
          resolveDir: layout.providersDir,
        };
      });
    },
  };
}

/** The provider families, each with a file of its own. */
export function families(layout) {
  return [...new Set(layout.lazy.map(providerFamily))].sort();
}

/** esbuild entry points of the family files: `providers-<family>` from `braid-providers:<family>`. */
export function providersEntryPoints(layout) {
  return Object.fromEntries(families(layout).map((family) => [familyFile(family).replace(/\.js$/, ''), `braid-providers:${family}`]));
}

/**
 * The entry of a family's file: `load(name, shared)` runs one provider module of the family (each
 * is initialised on its first load only) after taking the pi-ai modules the main bundle handed over.
 */
function providersEntry(layout, family) {
  const table = layout.lazy
    .filter((name) => providerFamily(name) === family)
    .map((name) => `  ${JSON.stringify(name)}: () => require(${JSON.stringify(path.join(layout.providersDir, name))}),`);
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
  "  if (!modules || !(name in modules)) throw new Error(`a providers file was not handed pi-ai's ${name}`);",
  '  return modules[name];',
  '};',
].join('\n');

/**
 * For the family files: their entries, and every import of a pi-ai module outside `providers/`
 * taken from what the main bundle handed over instead of bundled a second time.
 */
export function providersBundle(layout) {
  return {
    name: 'providers-bundle',
    setup(build) {
      build.onResolve({ filter: /^braid-providers:/ }, (args) => ({ path: args.path.slice('braid-providers:'.length), namespace: 'braid-providers' }));
      build.onResolve({ filter: /^braid-shared:registry$/ }, () => ({ path: 'registry', namespace: 'braid-shared' }));
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (!args.importer.startsWith(layout.providersDir + path.sep)) return undefined;
        const target = path.resolve(args.resolveDir, args.path);
        if (target.startsWith(layout.providersDir + path.sep) || !target.startsWith(layout.dist + path.sep)) return undefined;
        const name = path.relative(layout.dist, target).split(path.sep).join('/');
        if (!layout.shared.includes(name)) return { errors: [{ text: `a pi-ai provider imports ${name}, which the main bundles do not hand over` }] };
        return { path: name, namespace: 'braid-shared' };
      });
      build.onLoad({ filter: /.*/, namespace: 'braid-providers' }, (args) => ({
        contents: providersEntry(layout, args.path),
        loader: 'js',
        resolveDir: layout.providersDir,
      }));
      build.onLoad({ filter: /.*/, namespace: 'braid-shared' }, (args) => ({
        contents: args.path === 'registry' ? SHARED_REGISTRY : `module.exports = require("braid-shared:registry").get(${JSON.stringify(args.path)});`,
        loader: 'js',
        resolveDir: layout.dist,
      }));
    },
  };
}

/**
 * For dist/cli.js: its imports of `./process` (every command past `version` and `help`) and
 * `./readProcess` (the read-only ones) stay run-time loads of dist/cli-commands.js and
 * dist/cli-read.js, bundles of their own.
 */
export const commandsOutside = {
  name: 'cli-commands-outside',
  setup(build) {
    const bundles = { './process': './cli-commands.js', './readProcess': './cli-read.js' };
    build.onResolve({ filter: /^\.\/(process|readProcess)$/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer.endsWith(path.join('src', 'cli', 'main.ts')) ? { path: bundles[args.path], external: true } : undefined,
    );
  },
};

/**
 * For both main bundles: the MCP hub's import('./sdkClient') stays a run-time load of
 * dist/mcp-client.js (built from that module as an entry of its own), so commands and windows that
 * start no MCP server never read the SDK.
 */
export const mcpClientOutside = {
  name: 'mcp-client-outside',
  setup(build) {
    build.onResolve({ filter: /^\.\/sdkClient$/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer.endsWith(path.join('src', 'core', 'setup', 'mcp', 'hub.ts'))
        ? { path: './mcp-client.js', external: true }
        : undefined,
    );
  },
};
