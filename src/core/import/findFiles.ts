import fs from 'node:fs';
import path from 'node:path';

/**
 * The files under `root` (or `root` itself when it is a file) that `wanted` takes, `depth`
 * folders down at most, sorted. Folders that cannot be read are passed over; links are not
 * followed (a source folder is read, never walked out of).
 */
export function filesUnder(root: string, wanted: (file: string) => boolean, depth: number): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(root);
  } catch {
    return [];
  }
  if (stat.isFile()) return wanted(root) ? [root] : [];
  if (!stat.isDirectory() || depth < 0) return [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(root, entry.name);
    if (entry.isFile() && wanted(full)) found.push(full);
    else if (entry.isDirectory()) found.push(...filesUnder(full, wanted, depth - 1));
  }
  return found;
}
