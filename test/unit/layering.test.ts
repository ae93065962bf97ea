import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { findVscodeImports, listSourceFiles, reachableFiles } from '../support/layering';

const root = process.env.BRAID_REPO_ROOT ?? process.cwd();

test('no file under src/core imports vscode', () => {
  const coreFiles = listSourceFiles(path.join(root, 'src', 'core'));
  assert.ok(coreFiles.length > 0, 'src/core has source files');
  const offenders = coreFiles.filter((file) => findVscodeImports(fs.readFileSync(file, 'utf8')).length > 0);
  assert.deepEqual(offenders.map((f) => path.relative(root, f)), []);
});

test('no file under src/protocol or media imports vscode or node modules', () => {
  const files = [...listSourceFiles(path.join(root, 'src', 'protocol')), ...listSourceFiles(path.join(root, 'media', 'src'))];
  const offenders = files.filter((file) => /from ['"](vscode|node:[a-z_/]+)['"]/.test(fs.readFileSync(file, 'utf8')));
  assert.deepEqual(offenders.map((f) => path.relative(root, f)), []);
});

test('the chat\'s current session and everything it imports run without vscode (unit tests drive them)', () => {
  const pure = ['src/vscode/chat/currentSession.ts', 'src/vscode/sessions/sessionsTreeModel.ts'];
  for (const entry of pure) {
    const files = reachableFiles(path.join(root, entry));
    assert.ok(files.length > 3, `${entry} and its imports are found`);
    const offenders = files.filter((file) => findVscodeImports(fs.readFileSync(file, 'utf8')).length > 0);
    assert.deepEqual(offenders.map((f) => path.relative(root, f)), [], `${entry} reaches vscode`);
  }
});

test('the import check catches every form of importing vscode', () => {
  const caught = [
    `import * as vscode from 'vscode';`,
    `import { window } from "vscode";`,
    `import type { Uri } from 'vscode';`,
    `const v = require('vscode');`,
    `const v = await import('vscode');`,
    `export { Uri } from 'vscode';`,
    `import 'vscode';`,
  ];
  for (const source of caught) assert.equal(findVscodeImports(source).length, 1, source);
  const innocent = [
    `import { x } from './vscode-like';`,
    `const text = "the word vscode in a string";`,
    `// import * as vscode from 'vscode'`,
    `import { y } from '@types/vscode-other';`,
  ];
  for (const source of innocent) assert.equal(findVscodeImports(source).length, 0, source);
});
