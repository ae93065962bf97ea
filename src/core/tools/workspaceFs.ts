import fs from 'node:fs';
import path from 'node:path';

/** An error a tool reports to the model as its result (isError), in one sentence it can act on. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/**
 * The workspace folders as tools see them. Paths are relative to the first folder (absolute
 * paths inside a folder are accepted); every path is resolved through real paths, symlinks
 * included, and refused when it lands outside all folders.
 */
export class WorkspaceFs {
  readonly roots: string[];

  constructor(roots: readonly string[]) {
    if (roots.length === 0) throw new Error('no workspace folder');
    this.roots = roots.map((r) => fs.realpathSync(r));
  }

  get primary(): string {
    return this.roots[0]!;
  }

  /** The real absolute path of `p`, which must lie inside a workspace folder. */
  resolve(p: string): string {
    if (typeof p !== 'string' || p.trim() === '') throw new ToolError('path is empty');
    const absolute = path.resolve(this.primary, p);
    const real = realpathOfNearest(absolute);
    if (!this.roots.some((root) => real === root || real.startsWith(root + path.sep))) {
      throw new ToolError(`${p} is outside the workspace; tools only reach files inside ${this.roots.join(', ')}`);
    }
    return real;
  }

  /** A path for messages: relative to the folder that holds it. */
  display(absolute: string): string {
    const root = this.roots.find((r) => absolute === r || absolute.startsWith(r + path.sep)) ?? this.primary;
    return path.relative(root, absolute) || '.';
  }
}

/** realpath of `p`, or of its nearest existing ancestor joined with the rest (for files to be created). */
function realpathOfNearest(p: string): string {
  const missing: string[] = [];
  let current = p;
  for (;;) {
    try {
      return path.join(fs.realpathSync(current), ...missing.reverse());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const parent = path.dirname(current);
      if (parent === current) return p;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}
