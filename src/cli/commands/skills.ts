import { discoverCommands } from '../../core/setup/skills/commands';
import { setupPlaces } from '../../core/setup/skills/places';
import { discoverScopedInstructions } from '../../core/setup/skills/scopedInstructions';
import { discoverSkills, type Discovery } from '../../core/setup/skills/skills';
import { userConfigDir } from '../../core/setup/settingsFiles';
import { expectPositionals, parseArgs } from '../args';
import { jsonText, oneLine } from '../terminalText';

/** What one line of the list says of a skill or command. */
interface Listed {
  readonly name: string;
  readonly description: string;
  readonly origin: string;
  readonly source: string;
  readonly shown: string;
  readonly argumentHint?: string;
}

/**
 * `skills [--json]`: the skills and custom slash commands a session started here would have, each
 * with its origin (user or project), the folder it came from and its file; those a same-named one
 * hides; the `.github/instructions` files with their globs; files that could not be used, and why.
 * Reads only.
 */
export function skills(argv: readonly string[], input: { workspace: string; env: NodeJS.ProcessEnv; out(text: string): void }): number {
  const args = parseArgs(argv, { flags: ['json'] });
  expectPositionals(args, []);
  // The CLI runs where its user chose to run it: the workspace is trusted.
  const places = setupPlaces(input.workspace, true, userConfigDir(input.env), input.env);
  const found = { skills: discoverSkills(places), commands: discoverCommands(places), instructions: discoverScopedInstructions(input.workspace) };
  const problems = [...found.skills.problems, ...found.commands.problems, ...found.instructions.problems];
  if (args.options.has('json')) {
    const facts = {
      skills: entries(found.skills),
      commands: entries(found.commands),
      instructions: found.instructions.items.map((i) => ({ file: i.file, applyTo: i.applyTo })),
      problems,
    };
    input.out(`${jsonText(facts, 2)}\n`);
    return 0;
  }
  const lines: string[] = [];
  section(lines, 'Skills', found.skills, 'add a folder with a SKILL.md to .claude/skills/ or ~/.claude/skills/');
  section(lines, 'Commands', found.commands, 'add a Markdown file to .claude/commands/ or ~/.claude/commands/');
  lines.push('', 'Instructions for some files (.github/instructions)');
  if (found.instructions.items.length === 0) lines.push('  (none)');
  for (const i of found.instructions.items) lines.push(`  ${i.file}  applies to ${i.applyTo.join(', ') || 'no file (it has no applyTo)'}`);
  if (problems.length > 0) {
    lines.push('', 'Not used');
    for (const p of problems) lines.push(`  ${p.file}: ${p.reason}`);
  }
  input.out(`${lines.slice(1).map(oneLine).join('\n')}\n`);
  return 0;
}

function entries(found: Discovery<Listed & { file: string }>) {
  const entry = (x: Listed & { file: string }) => ({
    name: x.name,
    description: x.description,
    origin: x.origin,
    source: x.source,
    file: x.file,
    ...(x.argumentHint ? { argumentHint: x.argumentHint } : {}),
  });
  return [...found.items.map(entry), ...found.shadowed.map(({ item, by }) => ({ ...entry(item), shadowedBy: by.file }))];
}

function section(lines: string[], title: string, found: Discovery<Listed>, hint: string): void {
  lines.push('', title);
  if (found.items.length === 0) lines.push(`  (none; ${hint})`);
  for (const x of found.items) {
    const name = title === 'Commands' ? `/${x.name}${x.argumentHint ? ` ${x.argumentHint}` : ''}` : x.name;
    lines.push(`  ${name}  ${x.description}`, `      ${x.origin}, ${x.shown}`);
  }
  for (const { item, by } of found.shadowed) lines.push(`  ${item.name}  (${item.shown}) is hidden by ${by.shown}`);
}
