import fs from 'node:fs';
import path from 'node:path';

/** Every .ts/.js/.mts/.cts file under `dir`, recursively. */
export function listSourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...listSourceFiles(full));
    else if (/\.(m|c)?[tj]s$/.test(entry.name)) files.push(full);
  }
  return files;
}

/** The import statements of `source` that reach the `vscode` module (static, type-only, require, dynamic, re-export). */
export function findVscodeImports(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const pattern = /(?:\bfrom\s*|\bimport\s*|\brequire\s*\(\s*|\bimport\s*\(\s*)['"]vscode['"]/g;
  return code.match(pattern) ?? [];
}

/** The files `entry` reaches through relative imports (itself included), resolved to .ts files. */
export function reachableFiles(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = fs
      .readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const [, spec] of code.matchAll(/\bfrom\s*['"](\.[^'"]+)['"]/g)) {
      const base = path.resolve(path.dirname(file), spec!);
      const resolved = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
      if (resolved) visit(resolved);
    }
  };
  visit(entry);
  return [...seen];
}
