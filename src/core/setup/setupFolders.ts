import fs from 'node:fs';
import path from 'node:path';

// The folders skills and commands live in, scanned by name only (the setup's listing says what is
// there; reading a skill is the skills layer's). A project's folder is data a stranger may have
// written: a link on the way to it, or in it, is named and not followed.

/** The workspace's and the user's folders of skills (a folder with SKILL.md each) and commands (a Markdown file each). */
export const SETUP_FOLDERS = {
  projectSkills: ['.claude/skills', '.github/skills', '.braid/skills'],
  projectCommands: [
    { folder: '.claude/commands', suffix: '.md' },
    { folder: '.github/prompts', suffix: '.prompt.md' },
  ],
  userSkills: 'skills',
  userCommands: { folder: 'commands', suffix: '.md' },
} as const;

/** One skill or command found: its name and the file or folder it is (relative to the root it was found under). */
export interface FoundItem {
  readonly name: string;
  readonly path: string;
}

/** What a folder holds, or why it was not read; undefined when there is no such folder. */
export type FolderScan = { readonly items: FoundItem[]; readonly refused: string[] } | { readonly error: string } | undefined;

/** The skills under `root/relative`: each folder holding a SKILL.md, by the folder's name. */
export function scanSkills(root: string, relative: string): FolderScan {
  return scan(root, relative, (entry, refused) => {
    if (!entry.isDirectory()) return undefined;
    const skill = path.join(root, relative, entry.name, 'SKILL.md');
    const stat = lstatOrUndefined(skill);
    if (!stat) return undefined;
    if (!stat.isFile()) return void refused.push(`${path.join(relative, entry.name, 'SKILL.md')}: not a regular file (links are not followed)`);
    return { name: entry.name, path: path.join(relative, entry.name) };
  });
}

/** The commands under `root/relative`: each file ending in `suffix`, by its name without it. */
export function scanCommands(root: string, relative: string, suffix: string): FolderScan {
  return scan(root, relative, (entry) =>
    entry.isFile() && entry.name.endsWith(suffix) && entry.name.length > suffix.length
      ? { name: entry.name.slice(0, -suffix.length), path: path.join(relative, entry.name) }
      : undefined,
  );
}

function scan(root: string, relative: string, found: (entry: fs.Dirent, refused: string[]) => FoundItem | undefined): FolderScan {
  const link = linkOnTheWay(root, relative);
  if (link === null) return undefined;
  if (link) return { error: `not read: ${link} is a symbolic link (links are not followed)` };
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(root, relative), { withFileTypes: true });
  } catch (err) {
    return { error: `not read: ${(err as Error).message}` };
  }
  const refused: string[] = [];
  const items: FoundItem[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.isSymbolicLink()) refused.push(`${path.join(relative, entry.name)}: a symbolic link (links are not followed)`);
    else {
      const item = found(entry, refused);
      if (item) items.push(item);
    }
  }
  return { items, refused };
}

/** The first link among the folders from `root` to `relative` (relative to root), '' when none, null when the folder is missing. */
function linkOnTheWay(root: string, relative: string): string | '' | null {
  let at = '';
  for (const segment of relative.split('/')) {
    at = at ? path.join(at, segment) : segment;
    const stat = lstatOrUndefined(path.join(root, at));
    if (!stat) return null;
    if (stat.isSymbolicLink()) return at;
    if (!stat.isDirectory()) return null;
  }
  return '';
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}
