// Proves the lint rules that keep Braid's layers can fail (npm run lint runs them over the repo): a
// cycle through imports (type-only ones too) and every layer's forbidden imports are errors. The
// probes are linted as text under paths in the repository (no file is written there); the cycle's
// two files live in a temp folder.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { ESLint } from 'eslint';
import { findVscodeImports, reachableFiles } from '../support/layering';

const root = process.env.BRAID_REPO_ROOT ?? process.cwd();
const configFile = path.join(root, 'eslint.config.mjs');
const eslint = new ESLint({ cwd: root });
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-layering-'));
after(() => fs.rmSync(temp, { recursive: true, force: true }));

/** The rule ids of the errors ESLint reports for `code` as the file `relativePath` of the repository. */
async function errorsFor(relativePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, relativePath) });
  return result!.messages.filter((m) => m.severity === 2).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

test('a layer that imports what it must not is an error in every import form', async () => {
  const forms = [
    `import * as vscode from 'vscode';\nexport const v = vscode;`,
    `import type { Uri } from 'vscode';\nexport type U = Uri;`,
    `export { Uri } from 'vscode';`,
    `export const v = import('vscode');`,
  ];
  for (const code of forms) assert.deepEqual(await errorsFor('src/core/wire/layerProbe.ts', code), ['import-x/no-restricted-paths'], code);
  const required = await errorsFor('src/core/wire/layerProbe.ts', `const v = require('vscode');\nexport { v };`);
  assert.ok(required.includes('@typescript-eslint/no-require-imports'), required.join(', '));
  const restricted = 'import-x/no-restricted-paths';
  const forbidden: Array<[file: string, code: string, rule?: string]> = [
    ['src/core/layerProbe.ts', `export { runCli } from '../cli/run';`],
    ['src/core/layerProbe.ts', `export { channelLogger } from '../vscode/log';`],
    ['src/core/layerProbe.ts', `export { DEMO_EXAMPLES } from '../demo/demoExamples';`],
    // The core owns the types the protocol sends: it imports nothing of src/protocol, not even a type.
    ['src/core/wire/layerProbe.ts', `export type { HostToWebview } from '../../protocol/messages';`],
    ['src/core/session/layerProbe.ts', `export { carryOutPlanPrompt } from '../../protocol/modes';`],
    ['src/cli/layerProbe.ts', `export { readModelSettings } from '../vscode/settings';`],
    ['src/demo/layerProbe.ts', `export type { Logger } from '../core/logger';`],
    ['media/src/layerProbe.ts', `export { userMessageId } from '../../src/core/ids';`],
    ['media/src/layerProbe.ts', `export type { TurnMode } from '../../src/core/wire/turnMode';`],
    // The protocol takes values only from a pure core module; a pure module imports nothing else of the core.
    ['src/protocol/layerProbe.ts', `export { userMessageId } from '../core/ids';`, '@typescript-eslint/no-restricted-imports'],
    [
      'src/protocol/layerProbe.ts',
      `import { ChangesView } from '../core/store/changes';\nexport const c = ChangesView;`,
      '@typescript-eslint/no-restricted-imports',
    ],
    ['src/core/wire/turnMode.ts', `export type { Logger } from '../logger';`],
    ['src/core/index/wordRules.ts', `export type { TurnContent } from './turnText';`],
    // Down the core's layers only: wire is below format, format below store, store below session, session below import.
    ['src/core/wire/layerProbe.ts', `export type { SessionState } from '../format/sessionState';`],
    ['src/core/wire/layerProbe.ts', `export { IMPORTER_VERSION } from '../import/importer';`],
    ['src/core/session/layerProbe.ts', `export { IMPORTER_VERSION } from '../import/importer';`],
    ['src/core/format/layerProbe.ts', `export type { StoreContext } from '../store/storeContext';`],
    ['src/core/index/layerProbe.ts', `export type { SessionOptions } from '../session/session';`],
    ['src/core/fs/layerProbe.ts', `export type { WireRecord } from '../wire/records';`],
    // The base's top-level files too.
    ['src/core/hash.ts', `export type { WireRecord } from './wire/records';`],
    ['src/core/errors.ts', `export { modeReminder } from './session/modes';`],
    ['src/core/bytes.ts', `export type { SessionState } from './format/sessionState';`],
    // Siblings: the index and the tools do not import each other.
    ['src/core/tools/layerProbe.ts', `export type { SessionIndex } from '../index/sessionIndex';`],
    // src/vscode/commands is wiring: no other file of src/vscode imports it, not even a type.
    ['src/vscode/chat/layerProbe.ts', `export type { CommandContext } from '../commands/commandContext';`],
    ['src/vscode/layerProbe.ts', `export { registerCommands } from './commands';`],
  ];
  for (const [file, code, rule = restricted] of forbidden) assert.deepEqual(await errorsFor(file, code), [rule], `${file}: ${code}`);
  for (const file of ['src/protocol/layerProbe.ts', 'media/src/layerProbe.ts', 'src/core/wire/turnMode.ts', 'src/core/index/wordRules.ts']) {
    assert.deepEqual(await errorsFor(file, `import fs from 'node:fs';\nexport const f = fs;`), ['import-x/no-nodejs-modules'], file);
  }
});

test('imports the layers allow are not errors', async () => {
  const allowed: Array<[file: string, code: string]> = [
    ['src/core/session/layerProbe.ts', `export type { StoreContext } from '../store/storeContext';\nexport { replay } from '../wire/replay';`],
    ['src/core/store/layerProbe.ts', `export type { SessionIndex } from '../index/sessionIndex';\nexport { BlobStore } from '../format/blobStore';`],
    ['src/vscode/layerProbe.ts', `import * as vscode from 'vscode';\nexport { vscode };\nexport type { Logger } from '../core/logger';`],
    ['media/src/layerProbe.ts', `export type { HostToWebview } from '../../src/protocol/messages';`],
    // The commands import the rest of src/vscode and each other; src/extension.ts imports the commands.
    [
      'src/vscode/commands/layerProbe.ts',
      `export { APPROVE_PROJECT_SETUP_COMMAND } from '../commandIds';\nexport type { CommandContext } from './commandContext';`,
    ],
    ['src/extension.ts', `export { registerCommands } from './vscode/commands';`],
    // The protocol imports the core type-only, and values from its pure modules.
    [
      'src/protocol/layerProbe.ts',
      `export type { Logger } from '../core/logger';\nimport type { ChangesView } from '../core/store/changes';\nexport type C = ChangesView;`,
    ],
    ['src/protocol/layerProbe.ts', `export { TURN_MODES, type TurnMode } from '../core/wire/turnMode';`],
    ['src/protocol/layerProbe.ts', `export { wordFinder } from '../core/index/wordRules';`],
  ];
  for (const [file, code] of allowed) assert.deepEqual(await errorsFor(file, code), [], `${file}: ${code}`);
});

/** eslint.config.mjs's layers of src/core, lowest first, and its pure core modules. */
async function lintConfig(): Promise<{ coreLayers: string[][]; pureCoreModules: string[] }> {
  return (await import(pathToFileURL(configFile).href)) as { coreLayers: string[][]; pureCoreModules: string[] };
}

test("every folder and top-level file of src/core is in exactly one of eslint.config.mjs's layers", async () => {
  const { coreLayers } = await lintConfig();
  const entries = fs
    .readdirSync(path.join(root, 'src/core'), { withFileTypes: true })
    .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
    .map((e) => e.name.replace(/\.ts$/, ''));
  assert.ok(entries.includes('wire') && entries.includes('errors'), entries.join(', '));
  const named = coreLayers.flat();
  const counts = Object.fromEntries(entries.map((entry) => [entry, named.filter((n) => n === entry).length]));
  assert.deepEqual(counts, Object.fromEntries(entries.map((entry) => [entry, 1])));
  assert.deepEqual(
    named.filter((n) => !entries.includes(n)),
    [],
    'every name in a layer is in src/core',
  );
});

/**
 * The layers of docs/architecture.md's diagram (the fenced block whose last line is `base`),
 * lowest first as eslint.config.mjs lists them: `a | b | c` are siblings, and `base` stands for the
 * modules its line names.
 */
function documentedLayers(): string[][] {
  const doc = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const blocks = [...doc.matchAll(/```\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  );
  const diagram = blocks.find((lines) => lines.some((l) => l.startsWith('import ')) && lines.at(-1)!.startsWith('base '));
  assert.ok(diagram, "docs/architecture.md's Layers has the diagram of src/core's layers");
  return diagram.reverse().map((line) => {
    const [, names, description] = /^(\S+(?: \| \S+)*)\s{2,}(.*)$/.exec(line) ?? [];
    assert.ok(names && description, `a layer's line: ${line}`);
    return names === 'base' ? description.split(/,\s*/) : names.split(' | ');
  });
}

test("docs/architecture.md's layer diagram and eslint.config.mjs's coreLayers agree: same layers, order and members", async () => {
  const { coreLayers } = await lintConfig();
  assert.ok(coreLayers.length > 5);
  assert.deepEqual(documentedLayers(), coreLayers);
});

test('an import cycle is an error, through type-only imports too', async () => {
  fs.writeFileSync(path.join(temp, 'a.ts'), `import { b } from './b';\nexport const a = () => b;\n`);
  fs.writeFileSync(path.join(temp, 'b.ts'), `import type { Shape } from './c';\nexport const b = (s: Shape) => s;\n`);
  fs.writeFileSync(path.join(temp, 'c.ts'), `import type { a } from './a';\nexport type Shape = typeof a;\n`);
  fs.writeFileSync(path.join(temp, 'd.ts'), `import { a } from './a';\nexport const d = a;\n`);
  const linter = new ESLint({ cwd: temp, overrideConfigFile: configFile });
  const results = await linter.lintFiles(['*.ts']);
  const cycles = Object.fromEntries(results.map((r) => [path.basename(r.filePath), r.messages.filter((m) => m.ruleId === 'braid/no-import-cycle').length]));
  // a -> b -> c -> a is a cycle (each of its files is told); d only imports into it.
  assert.deepEqual(cycles, { 'a.ts': 1, 'b.ts': 1, 'c.ts': 1, 'd.ts': 0 });
});

// Lint checks each file's own imports; these two must not reach vscode through anything they import.
test("the chat's current session and the Sessions tree's model, with all they import, run without vscode (unit tests drive them)", () => {
  const pure = ['src/vscode/chat/currentSession.ts', 'src/vscode/sessionsTree/sessionsTreeModel.ts'];
  for (const entry of pure) {
    const files = reachableFiles(path.join(root, entry));
    assert.ok(files.length > 3, `${entry} and its imports are found`);
    const offenders = files.filter((file) => findVscodeImports(fs.readFileSync(file, 'utf8')).length > 0);
    assert.deepEqual(
      offenders.map((f) => path.relative(root, f)),
      [],
      `${entry} reaches vscode`,
    );
  }
});
