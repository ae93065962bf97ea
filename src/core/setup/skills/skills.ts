import path from 'node:path';
import { errorMessage } from '../../errors';
import { readFrontMatter, textField } from './frontMatter';
import { foldersOf, type SetupPlaces } from './places';
import { folderEntries, folderPresent, readSetupText, shownPath, type SetupFileOrigin, type SetupFolder, type SetupProblem } from './setupFolder';

/** A SKILL.md larger than this is not read. */
export const MAX_SKILL_BYTES = 256 * 1024;
/** The Agent Skills format's limits on a name and a description. */
const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const MAX_DESCRIPTION = 1024;

/** A skill: a folder with a SKILL.md whose front matter names and describes it. */
export interface Skill {
  readonly name: string;
  readonly description: string;
  /** The SKILL.md file (absolute). */
  readonly file: string;
  /** The skill's folder (absolute): its scripts and references are there. */
  readonly dir: string;
  readonly origin: SetupFileOrigin;
  /** The folder it was found in, as a person names it (`.claude/skills`, `~/.claude/skills`). */
  readonly source: string;
  /** The SKILL.md as the system prompt and lists show it (relative to the workspace, or `~/…`). */
  readonly shown: string;
  /** A project skill's workspace: nothing of it is read through a link out of it. */
  readonly root?: string;
}

/** What a discovery found: the items that are used, the ones a same-named item hides, the files not used. */
export interface Discovery<T> {
  readonly items: readonly T[];
  readonly shadowed: readonly { readonly item: T; readonly by: T }[];
  readonly problems: readonly SetupProblem[];
}

/** The skills of the places, sorted by name; on a name clash the earlier folder wins ({@link foldersOf}). */
export function discoverSkills(places: SetupPlaces): Discovery<Skill> {
  const found: Skill[] = [];
  const problems: SetupProblem[] = [];
  for (const folder of foldersOf('skills', places)) {
    if (!folderPresent(folder)) continue;
    for (const name of folderEntries(folder.dir, folder).folders) {
      const dir = path.join(folder.dir, name);
      if (!folderEntries(dir, folder).files.includes('SKILL.md')) continue;
      const file = path.join(dir, 'SKILL.md');
      try {
        found.push(readSkill(file, dir, folder, places));
      } catch (err) {
        problems.push({ file: shownPath(file, places.workspaceDir, places.home), reason: errorMessage(err) });
      }
    }
  }
  return firstOfEachName(found, problems);
}

function readSkill(file: string, dir: string, folder: SetupFolder, places: SetupPlaces): Skill {
  const { fields } = readFrontMatter(readSetupText(file, folder, MAX_SKILL_BYTES));
  const name = textField(fields, 'name') ?? '';
  const description = (textField(fields, 'description') ?? '').replace(/\s+/g, ' ').trim();
  if (!NAME.test(name))
    throw new Error(name ? `its name "${name.slice(0, 80)}" is not lowercase letters, digits and hyphens (at most 64)` : 'its front matter has no name');
  if (!description) throw new Error('its front matter has no description');
  if (description.length > MAX_DESCRIPTION) throw new Error(`its description is longer than ${MAX_DESCRIPTION} characters`);
  const shown = shownPath(file, places.workspaceDir, places.home);
  return { name, description, file, dir, origin: folder.origin, source: folder.label, shown, ...(folder.root ? { root: folder.root } : {}) };
}

/** Keeps the first item of each name (items come in precedence order), sorted by name. */
export function firstOfEachName<T extends { readonly name: string }>(found: readonly T[], problems: readonly SetupProblem[]): Discovery<T> {
  const byName = new Map<string, T>();
  const shadowed: { item: T; by: T }[] = [];
  for (const item of found) {
    const first = byName.get(item.name);
    if (first) shadowed.push({ item, by: first });
    else byName.set(item.name, item);
  }
  const items = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { items, shadowed, problems };
}

/**
 * The skills' part of the system prompt: one line per skill, sorted by name, the same bytes for the
 * same skills (the prompt's cached beginning stays). Empty when there are none.
 */
export function skillsPrompt(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  const lines = skills.map((s) => `- ${s.name}: ${s.description} (${s.shown})`);
  return [
    'Skills: instructions and files for particular tasks. When a task matches a skill, call the skill tool with its name first and follow what it says;',
    "a skill's scripts run only through the bash tool.",
    ...lines,
  ].join('\n');
}
