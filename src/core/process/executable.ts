import fs from 'node:fs';
import path from 'node:path';

/**
 * The absolute path of a program found on PATH, looking only in absolute PATH entries. Spawning a
 * bare name with the workspace as the working folder would let a relative entry (".", an empty
 * one) or Windows, which searches the working folder first, run a program the workspace holds.
 */
export function findExecutable(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? env.Path ?? '').split(path.delimiter).filter((d) => d && path.isAbsolute(d));
  const suffixes = process.platform === 'win32' ? (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean) : [''];
  for (const dir of dirs) {
    for (const suffix of suffixes) {
      const candidate = path.join(dir, name + suffix);
      try {
        if (fs.statSync(candidate).isFile()) {
          fs.accessSync(candidate, fs.constants.X_OK);
          return candidate;
        }
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
