// ESLint for Braid: typescript-eslint's recommended rules, no import cycles anywhere (type-only
// imports count: scripts/lint/noImportCycle.mjs), and the layers of docs/architecture.md ("Layers")
// enforced by import-x/no-restricted-paths.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import fs from 'node:fs';
import path from 'node:path';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { noImportCycle } from './scripts/lint/noImportCycle.mjs';

const root = import.meta.dirname;

// src/core's layers, lowest first: every folder and top-level file of src/core is in exactly one
// (test/unit/layering.test.ts checks it, and that docs/architecture.md's "Layers" lists the same).
// A module may import from its own layer and the layers before it, never from a layer after it;
// the folders (or files) sharing one layer after the base are siblings and do not import each other.
//   base    fs, ids, counted, logger, timeAgo, workspace, process, git, errors, bytes, hash, workerBundle: nothing of Braid's domain
//   wire    wire records, the log writer and readers, a turn's mode
//   format  the disk format of a session folder: layout, state.json, summary, titles, blobs
//   index | tools | model   the sql.js index; the agent's tools; model settings (siblings)
//   setup   what the user brings: settings files, MCP servers, skills, commands, hooks, permission rules
//   store   the session store: lifecycle, writer, lease, fork, rewind, doctor
//   session the Session seam over the kernel
//   import  other agents' sessions made Braid sessions
export const coreLayers = [
  ['fs', 'ids', 'counted', 'logger', 'timeAgo', 'workspace', 'process', 'git', 'errors', 'bytes', 'hash', 'workerBundle'],
  ['wire'],
  ['format'],
  ['index', 'tools', 'model'],
  ['setup'],
  ['store'],
  ['session'],
  ['import'],
  ['share'],
];

/** The path of a core module named in `coreLayers`: its folder, else its file. */
function corePath(name) {
  const folder = `src/core/${name}`;
  return fs.existsSync(path.join(root, folder)) ? folder : `${folder}.ts`;
}

/** One zone per layer: it may not import any later layer, nor a sibling of its own. */
function coreLayerZones() {
  const zones = [];
  coreLayers.forEach((layer, i) => {
    const later = coreLayers.slice(i + 1).flat();
    for (const name of layer) {
      const siblings = i === 0 ? [] : layer.filter((other) => other !== name);
      const from = [...siblings, ...later].map(corePath);
      if (from.length === 0) continue;
      zones.push({
        target: corePath(name),
        from,
        message: `The core's layers point down: src/core/${name} imports none of ${from.join(', ')} (eslint.config.mjs).`,
      });
    }
  });
  return zones;
}

// The core modules the page may bundle (through src/protocol): pure data and functions, no Node module, nothing
// else of the core's. The protocol imports any other core module type-only (`protocolCoreImports`).
export const pureCoreModules = ['src/core/wire/turnMode.ts', 'src/core/index/wordRules.ts'];

// The top-level layers. `vscode` resolves to @types/vscode, so the same zones catch it in every
// import form (static, type-only, re-export, dynamic); require() is refused everywhere by
// @typescript-eslint/no-require-imports. Node's modules are refused by import-x/no-nodejs-modules.
const vscodeApi = 'node_modules/@types/vscode';
const topLevelZones = [
  {
    target: 'src/core',
    from: [vscodeApi, 'src/vscode', 'src/cli', 'src/demo', 'src/protocol', 'src/extension.ts'],
    message: 'src/core is pure TypeScript under the CLI and VS Code, and owns the types the webview protocol sends.',
  },
  {
    target: pureCoreModules,
    from: 'src/core',
    except: pureCoreModules.map((file) => path.relative('src/core', file)),
    message: 'A pure core module (eslint.config.mjs, pureCoreModules) imports no other module of the core: the page bundles it.',
  },
  {
    target: 'src/protocol',
    from: [vscodeApi, 'src/vscode', 'src/cli', 'src/extension.ts'],
    message: 'The webview protocol runs in a browser.',
  },
  {
    target: 'media/src',
    from: [vscodeApi, 'src/core', 'src/vscode', 'src/cli', 'src/extension.ts'],
    message: "The webview page runs in a browser; it takes the core's types through src/protocol.",
  },
  { target: 'src/demo', from: [vscodeApi, 'src/core', 'src/vscode', 'src/cli', 'src/protocol', 'src/extension.ts'], message: 'The demo agent stands alone.' },
  { target: 'src/cli', from: [vscodeApi, 'src/vscode', 'src/extension.ts'], message: 'The CLI runs without VS Code.' },
  {
    // Every file of src/vscode outside src/vscode/commands (its top-level files and its other
    // folders), but the per-feature registrations activate calls (register*.ts): wiring too.
    target: ['src/vscode/!(register*).ts', 'src/vscode/!(commands)/**/!(register*).ts'],
    from: 'src/vscode/commands',
    message:
      'src/vscode/commands is wiring, imported only by src/extension.ts and the per-feature registrations (register*.ts): what a view needs of a command lives below it (src/vscode/commandIds.ts, braidCommand.ts).',
  },
];

// What src/protocol may import of the core: types from any module (erased from the page's bundle),
// values only from a pure module. Matched on the import's text: src/protocol's files reach the core as `../core/…`.
const pureCoreSpecifiers = pureCoreModules.map((file) => path.relative('src/core', file).replace(/\.ts$/, '').replace(/[.]/g, '\\.'));
const protocolCoreImports = {
  patterns: [
    {
      regex: `^(\\.\\./)+(src/)?core(/(?!(${pureCoreSpecifiers.join('|')})$).*)?$`,
      allowTypeImports: true,
      message: 'The webview protocol imports the core type-only, or values from a pure core module (eslint.config.mjs, pureCoreModules).',
    },
  ],
};

export default tseslint.config(
  {
    ignores: ['dist/**', 'out/**', 'test-output/**', 'media/dist/**', '**/node_modules/**', '.vscode-test/**'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX, braid: { rules: { 'no-import-cycle': noImportCycle } } },
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Not import-x/no-cycle: it skips type-only imports, and a cycle through types still ties two modules together.
      'braid/no-import-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { basePath: root, zones: [...topLevelZones, ...coreLayerZones()] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src/protocol/**', 'media/src/**', ...pureCoreModules],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'import-x/no-nodejs-modules': 'error' },
  },
  {
    files: ['src/protocol/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', protocolCoreImports] },
  },
  {
    // Playwright's page.evaluate bodies run in the page.
    files: ['test/e2e/**', 'test/support/**'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // CommonJS on purpose: a test extension VS Code loads as it is, and the shim esbuild injects into cjs bundles.
    files: ['test/e2e/fixtures/**/*.js', 'src/shims/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
