import fs from 'node:fs';
import path from 'node:path';

/**
 * Counts the synchronous node:fs calls of this process, by function and by what the file is in a
 * store ("readFileSync state.json", "fsyncSync wire.jsonl"). The core reaches fs through the
 * module object (`import fs from 'node:fs'`), so replacing its functions sees every call. Calls
 * that Node makes inside another counted call (readFileSync opening its file) are not counted again.
 */
export class FsCounter {
  private readonly counts = new Map<string, number>();
  private readonly fds = new Map<number, string>();
  /** The last file renamed into each folder: a folder fsync right after it makes that rename durable. */
  private readonly lastRenamed = new Map<string, string>();
  private readonly originals = new Map<string, unknown>();
  private depth = 0;

  constructor(private readonly workspace: string) {}

  /** Starts counting (replaces the fs functions). */
  install(): this {
    const wrapped: Array<keyof typeof fs> = [
      'openSync',
      'closeSync',
      'readFileSync',
      'readSync',
      'writeFileSync',
      'writeSync',
      'renameSync',
      'fsyncSync',
      'statSync',
      'lstatSync',
      'fstatSync',
      'existsSync',
      'rmSync',
      'unlinkSync',
      'utimesSync',
      'readdirSync',
      'mkdirSync',
      'copyFileSync',
      'realpathSync',
      'accessSync',
      'linkSync',
    ];
    for (const name of wrapped) this.wrap(name);
    return this;
  }

  /** Stops counting (puts the fs functions back). */
  uninstall(): void {
    const target = fs as unknown as Record<string, unknown>;
    for (const [name, original] of this.originals) target[name] = original;
    this.originals.clear();
  }

  /** A copy of the counts so far, keyed "function kind". */
  snapshot(): Map<string, number> {
    return new Map(this.counts);
  }

  private wrap(name: keyof typeof fs): void {
    const target = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
    const original = target[name]!;
    this.originals.set(name, original);
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the wrapper is a function whose own `this` is the caller's
    const counter = this;
    const counted = function (this: unknown, ...args: unknown[]) {
      if (counter.depth > 0) return original.apply(this, args);
      counter.depth++;
      let result: unknown;
      try {
        result = original.apply(this, args);
      } finally {
        counter.depth--;
      }
      counter.note(name, args, result);
      return result;
    };
    target[name] = Object.assign(counted, original); // keeps realpathSync.native and the like
  }

  /** Counts one call that succeeded (a throwing call, such as a lock file that exists, is not an acquisition). */
  private note(name: string, args: unknown[], result: unknown): void {
    const [first, second] = args;
    const file = typeof first === 'number' ? (this.fds.get(first) ?? 'unknown fd') : String(first);
    if (name === 'openSync') this.fds.set(result as number, file);
    if (name === 'closeSync') {
      this.fds.delete(first as number);
      return;
    }
    if (name === 'renameSync') this.lastRenamed.set(path.dirname(String(second)), String(second));
    const renamed = name === 'fsyncSync' ? this.lastRenamed.get(file) : undefined;
    if (renamed) this.lastRenamed.delete(file);
    const about = name === 'renameSync' ? String(second) : (renamed ?? file);
    this.add(`${name} ${this.kindOf(about, renamed !== undefined)}`);
    if (isExclusiveCreate(name, args)) this.add(`lock ${this.kindOf(file, false)}`);
  }

  private add(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /**
   * What a file is: a store file by its name (a temp file of an atomic write counts as its
   * target), the workspace's files, or a folder. A folder fsync that follows a rename in it counts
   * as the renamed file's.
   */
  private kindOf(file: string, viaFolder: boolean): string {
    if (file.startsWith(this.workspace)) return 'workspace';
    const name = path.basename(file).replace(/^\.(.+)\.tmp-\d+-\d+$/, '$1');
    if (['state.json', 'state.lock', 'writer.lock', 'index.sqlite', 'index.lock', 'wire.jsonl'].includes(name)) return viaFolder ? `${name} (folder)` : name;
    if (name.startsWith('state.json.broken-')) return 'state.json.broken';
    if (file === 'unknown fd') return file;
    return path.extname(name) ? 'other file' : 'folder';
  }
}

/** writeFileSync or openSync with the `wx` flag: how FileLock takes a lock file. */
function isExclusiveCreate(name: string, args: unknown[]): boolean {
  if (name === 'writeFileSync') return (args[2] as { flag?: string } | undefined)?.flag === 'wx';
  if (name === 'openSync') return args[1] === 'wx';
  return false;
}

/** The counts of `after` minus those of `before`. */
export function countsBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const diff = new Map<string, number>();
  for (const [key, n] of after) {
    const d = n - (before.get(key) ?? 0);
    if (d) diff.set(key, d);
  }
  return diff;
}
