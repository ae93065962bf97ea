import fs from 'node:fs';
import path from 'node:path';
import type { SourceRef } from './source';

/**
 * The files under `root` (or `root` itself when it is a file) that `wanted` takes, `depth`
 * folders down at most, sorted, each with the folder it was found in (what bounds its reads:
 * `root`, or a file's own folder). Folders that cannot be read are passed over; links are not
 * followed (a source folder is read, never walked out of), and only regular files are taken.
 */
export function filesUnder(root: string, wanted: (file: string) => boolean, depth: number): SourceRef[] {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(root);
  } catch {
    return [];
  }
  if (stat.isFile()) return wanted(root) ? [{ file: root, root: path.dirname(root) }] : [];
  return stat.isDirectory() ? walk(root, root, wanted, depth) : [];
}

function walk(folder: string, root: string, wanted: (file: string) => boolean, depth: number): SourceRef[] {
  if (depth < 0) return [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: SourceRef[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(folder, entry.name);
    if (entry.isFile() && wanted(full)) found.push({ file: full, root });
    else if (entry.isDirectory()) found.push(...walk(full, root, wanted, depth - 1));
  }
  return found;
}
