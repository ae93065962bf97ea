import fs from 'node:fs';
import path from 'node:path';
import { readSource } from '../../fs/sourceFile';
import { isFolder } from '../../fs/probe';

// Reading the folders skills, commands and instructions live in. A project's folder is a
// stranger's: nothing is read through a link that leads out of the workspace, and every file is
// bounded. The user's own folders are the user's: their links are followed (a skills folder kept
// in a dotfiles repository and linked into place works).

/** Where a skill, command or instruction file came from. */
export type SetupFileOrigin = 'project' | 'user';

/** A folder to look in, and the root nothing read from it may leave. */
export interface SetupFolder {
  readonly dir: string;
  readonly origin: SetupFileOrigin;
  /** How the folder is named to a person (`.claude/skills`, `~/.claude/skills`). */
  readonly label: string;
  /** Project folders: the workspace (links out of it are refused). User folders: undefined. */
  readonly root?: string;
}

/** A file that was found and not used, and why. */
export interface SetupProblem {
  readonly file: string;
  readonly reason: string;
}

/** At most this many entries are looked at in one folder: a huge folder cannot stall a turn. */
export const MAX_ENTRIES = 500;

/** Reads a text file of a setup folder (at most `limit` bytes). Throws with the reason when it cannot be read. */
export function readSetupText(file: string, folder: SetupFolder, limit: number): string {
  if (folder.root !== undefined) return readSource(file, folder.root, limit).toString('utf8');
  const real = fs.realpathSync(file);
  return readSource(real, path.dirname(real), limit).toString('utf8');
}

/** The names of a folder's sub-folders and files (sorted; links followed only in a user folder). */
export function folderEntries(dir: string, folder: SetupFolder): { folders: string[]; files: string[] } {
  const folders: string[] = [];
  const files: string[] = [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return { folders, files };
  }
  for (const e of entries.slice(0, MAX_ENTRIES)) {
    let kind: 'folder' | 'file' | undefined = e.isDirectory() ? 'folder' : e.isFile() ? 'file' : undefined;
    if (e.isSymbolicLink() && folder.root === undefined) {
      try {
        const stat = fs.statSync(path.join(dir, e.name));
        kind = stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : undefined;
      } catch {
        kind = undefined; // a broken link
      }
    }
    if (kind === 'folder') folders.push(e.name);
    else if (kind === 'file') files.push(e.name);
  }
  return { folders: folders.sort(), files: files.sort() };
}

/** Whether a setup folder is there to read (a project's: a real folder inside the workspace, not a link out of it). */
export function folderPresent(folder: SetupFolder): boolean {
  if (!isFolder(folder.dir)) return false;
  if (folder.root === undefined) return true;
  try {
    const real = fs.realpathSync(folder.dir);
    const root = fs.realpathSync(folder.root);
    const rel = path.relative(root, real);
    return !rel.startsWith('..') && !path.isAbsolute(rel);
  } catch {
    return false;
  }
}

/** How a file is named to a person and the model: relative to the workspace, `~/…` under the home folder, else absolute. */
export function shownPath(file: string, workspaceDir: string, home: string): string {
  const inWorkspace = path.relative(workspaceDir, file);
  if (!inWorkspace.startsWith('..') && !path.isAbsolute(inWorkspace)) return inWorkspace.split(path.sep).join('/');
  const inHome = path.relative(home, file);
  if (home && !inHome.startsWith('..') && !path.isAbsolute(inHome)) return `~/${inHome.split(path.sep).join('/')}`;
  return file;
}
