import path from 'node:path';
import { Type } from '@mariozechner/pi-ai';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { textResult } from '../../tools/context';
import { ToolError } from '../../tools/workspaceFs';
import { readFrontMatter } from './frontMatter';
import { folderEntries, readSetupText, type SetupFolder } from './setupFolder';
import { discoverSkills, MAX_SKILL_BYTES, type Skill } from './skills';
import type { SetupPlaces } from './places';

/** A skill's files are listed this deep and this many. */
const LIST_DEPTH = 3;
const LIST_FILES = 100;

/**
 * The `skill` tool: the model calls it with a skill's name (from the system prompt's list) and
 * gets the SKILL.md's instructions, the skill's folder and its files. It only reads: a skill's
 * scripts run through the bash tool, which asks the user.
 */
export function skillTool(places: () => SetupPlaces): AgentTool {
  return {
    name: 'skill',
    label: 'Use skill',
    description: 'Load a skill listed in the system prompt: returns its instructions (SKILL.md), its folder and its files. Run its scripts with the bash tool.',
    parameters: Type.Object({ name: Type.String({ description: "The skill's name, as listed" }) }),
    async execute(_id, raw: unknown) {
      const { name } = raw as { name: string };
      const { items } = discoverSkills(places());
      const skill = items.find((s) => s.name === name);
      if (!skill) throw new ToolError(`there is no skill named "${name}"; the skills are: ${items.map((s) => s.name).join(', ') || 'none'}`);
      return textResult(skillText(skill), { skill: skill.name, file: skill.file });
    },
  };
}

function skillText(skill: Skill): string {
  const folder = skillFolder(skill);
  const { body } = readFrontMatter(readSetupText(skill.file, folder, MAX_SKILL_BYTES));
  const files = filesOf(skill.dir, folder);
  return [
    `Skill ${skill.name} (${skill.shown}). Its folder is ${skill.dir}; paths in it are relative to that folder.`,
    `Its files: ${files.length ? files.join(', ') : 'SKILL.md only'}`,
    "Run its scripts with the bash tool (each command is the user's to approve); nothing of a skill runs by itself.",
    '',
    body.trim(),
  ].join('\n');
}

/** The folder rules a skill was read under: a project skill stays inside the workspace. */
function skillFolder(skill: Skill): SetupFolder {
  return { dir: skill.dir, origin: skill.origin, label: skill.source, ...(skill.root ? { root: skill.root } : {}) };
}

/** The skill's files other than SKILL.md, relative to its folder (bounded). */
function filesOf(dir: string, folder: SetupFolder): string[] {
  const out: string[] = [];
  const walk = (at: string, prefix: string, depth: number) => {
    const { folders, files } = folderEntries(at, folder);
    for (const f of files) if (out.length < LIST_FILES && !(prefix === '' && f === 'SKILL.md')) out.push(prefix + f);
    if (depth < LIST_DEPTH) for (const sub of folders) walk(path.join(at, sub), `${prefix}${sub}/`, depth + 1);
  };
  walk(dir, '', 1);
  return out;
}
