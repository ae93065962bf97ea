// A local ESLint rule: no import cycles, counting type-only imports. import-x/no-cycle leaves
// type-only imports out by design (they vanish at run time), but a cycle through types still ties two
// modules' designs together, so Braid's layers allow none. Each file's imports are read with
// TypeScript's import scanner (no full parse) and resolved the way tsconfig.json resolves them.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const compilerOptions = { moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext, allowJs: true, resolveJsonModule: true };
/** file -> { mtimeMs, imports: the files it imports that are sources of this repository } */
const importsCache = new Map();

/** The source file `specifier` names from `fromFile`, or undefined when it is a package, a Node module or not found. */
function resolveImport(specifier, fromFile) {
  if (!specifier.startsWith('.')) return undefined;
  const resolved = ts.resolveModuleName(specifier, fromFile, compilerOptions, ts.sys).resolvedModule;
  if (!resolved || resolved.isExternalLibraryImport) return undefined;
  return path.resolve(resolved.resolvedFileName);
}

/** Every repository file `file` imports in any form (static, type-only, re-export, dynamic, require). */
function importsOf(file) {
  let mtimeMs;
  try {
    mtimeMs = fs.statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const cached = importsCache.get(file);
  if (cached && cached.mtimeMs === mtimeMs) return cached.imports;
  const scanned = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles;
  const imports = [...new Set(scanned.map((ref) => resolveImport(ref.fileName, file)).filter(Boolean))];
  importsCache.set(file, { mtimeMs, imports });
  return imports;
}

/** The shortest chain of imports from `start` back to `file`, or undefined when there is none. */
function pathBack(start, file) {
  const cameFrom = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const current = queue.shift();
    for (const next of importsOf(current)) {
      if (next === file) {
        const chain = [];
        for (let at = current; at !== undefined; at = cameFrom.get(at)) chain.unshift(at);
        return chain;
      }
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, current);
      queue.push(next);
    }
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, type-only imports included.' },
    schema: [],
    messages: { cycle: 'Import cycle: {{chain}} imports this file again. Move what both need into a lower module.' },
  },
  create(context) {
    const file = path.resolve(context.physicalFilename);
    const root = context.cwd;
    function check(sourceNode) {
      if (!sourceNode || typeof sourceNode.value !== 'string') return;
      const target = resolveImport(sourceNode.value, file);
      if (!target || target === file) return;
      const chain = pathBack(target, file);
      if (chain) context.report({ node: sourceNode, messageId: 'cycle', data: { chain: chain.map((f) => path.relative(root, f)).join(' -> ') } });
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportEqualsDeclaration: (node) => check(node.moduleReference.expression),
      TSImportType: (node) => check(node.argument?.literal ?? node.source),
    };
  },
};
