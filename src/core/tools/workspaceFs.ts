import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors';
import { realPath } from '../fs/probe';

/** An error a tool reports to the model as its result (isError), in one sentence it can act on. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** Where a real path sits: the workspace folder holding it and the path relative to that folder. */
export interface WorkspacePlace {
  readonly root: string;
  readonly relative: string;
}

/**
 * The workspace folders as tools see them. Paths are relative to the first folder (absolute
 * paths inside a folder are accepted); every path is resolved through real paths, symlinks
 * included, and refused when it lands outside all folders or inside a folder tools must never
 * touch (Braid's own data folder, when it sits inside the workspace).
 */
export class WorkspaceFs {
  readonly roots: string[];
  /** Real paths of folders no tool may read or write, even inside a workspace folder. */
  readonly forbidden: string[];

  constructor(roots: readonly string[], forbidden: readonly string[] = []) {
    if (roots.length === 0) throw new Error('no workspace folder');
    this.roots = roots.map((r) => fs.realpathSync(r));
    this.forbidden = forbidden.map((f) => realPath(f) ?? path.resolve(f));
  }

  get primary(): string {
    return this.roots[0]!;
  }

  /** The real absolute path of `p`, which must lie inside a workspace folder and outside forbidden ones. */
  resolve(p: string): string {
    if (typeof p !== 'string' || p.trim() === '') throw new ToolError('path is empty');
    // eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
    const control = /[\u0000-\u001f\u007f]/.exec(p);
    if (control) {
      const code = `U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
      throw new ToolError(
        `the path ${JSON.stringify(p)} contains a control character (${code}); names with NUL, newlines or other control characters are refused, use a plain name`,
      );
    }
    const absolute = path.resolve(this.primary, p);
    const real = realpathOfNearest(absolute, p);
    this.requireInside(real, p, real !== absolute);
    return real;
  }

  /** Throws the tool's refusal unless `real` (a real path) is a place tools may touch. */
  requireInside(real: string, asGiven: string, throughLink = false): void {
    if (this.forbidden.some((f) => isWithin(real, f))) {
      throw new ToolError(`${asGiven} is inside Braid's own data folder, which tools never read or write`);
    }
    if (!this.roots.some((root) => isWithin(real, root))) {
      throw new ToolError(
        `${asGiven} is outside the workspace${throughLink ? ' (through a symbolic link)' : ''}; tools only reach files inside ${this.roots.join(', ')}`,
      );
    }
  }

  /** Whether `real` (a real path) is a place tools may touch. */
  contains(real: string): boolean {
    return !this.forbidden.some((f) => isWithin(real, f)) && this.roots.some((root) => isWithin(real, root));
  }

  /** The workspace folder holding `absolute` (the deepest, when folders nest) and the path relative to it. */
  place(absolute: string): WorkspacePlace {
    const holding = this.roots.filter((r) => isWithin(absolute, r)).sort((a, b) => b.length - a.length);
    const root = holding[0] ?? this.primary;
    return { root, relative: path.relative(root, absolute) || '.' };
  }

  /** A path for messages: relative to the folder that holds it. */
  display(absolute: string): string {
    return this.place(absolute).relative;
  }
}

/** `p` is `dir` or inside it. */
export function isWithin(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

const MAX_LINKS = 40;

/**
 * realpath of `p`, or of its nearest existing ancestor joined with the rest (for files to be
 * created). A dangling symbolic link is followed to where it points: writing through it would
 * create its target, which may lie outside the workspace.
 */
function realpathOfNearest(p: string, asGiven: string): string {
  const missing: string[] = [];
  let current = p;
  for (let links = 0; ;) {
    try {
      return path.join(fs.realpathSync(current), ...missing.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new ToolError(`${asGiven} goes through a loop of symbolic links; give a path without it`);
      if (code === 'ENOTDIR') throw new ToolError(`${asGiven} goes through a file as if it were a folder; check the path with list_dir`);
      if (code !== 'ENOENT') throw new ToolError(`${asGiven} cannot be resolved (${code ?? errorMessage(err)}); check the path with list_dir`);
      const link = readLink(current);
      if (link !== undefined) {
        if (++links > MAX_LINKS) throw new ToolError(`${asGiven} goes through too many symbolic links`);
        current = path.resolve(path.dirname(current), link);
        continue;
      }
      const parent = path.dirname(current);
      if (parent === current) return path.join(current, ...missing.reverse());
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/** The target of a symbolic link, or undefined when `p` is not one. */
function readLink(p: string): string | undefined {
  try {
    return fs.lstatSync(p).isSymbolicLink() ? fs.readlinkSync(p) : undefined;
  } catch {
    return undefined;
  }
}
