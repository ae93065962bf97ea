import path from 'node:path';
import { errorMessage } from '../../errors';
import { readFrontMatter, textField } from './frontMatter';
import { foldersOf, type SetupPlaces } from './places';
import { folderEntries, folderPresent, readSetupText, shownPath, type SetupFileOrigin, type SetupFolder, type SetupProblem } from './setupFolder';
import { firstOfEachName, type Discovery } from './skills';

/** A command file larger than this is not read. */
export const MAX_COMMAND_BYTES = 256 * 1024;
/** Sub-folders of a commands folder are looked into this deep (`a:b:c`). */
const MAX_DEPTH = 4;
/** One segment of a command's name: what the composer and `braid exec` can type after `/`. */
const SEGMENT = /^[\w][\w.-]*$/;

/** A custom slash command: a Markdown file whose body becomes the prompt. */
export interface CustomCommand {
  /** `review`, `frontend:test` (Claude Code's sub-folders), `explain` (from explain.prompt.md). */
  readonly name: string;
  readonly description: string;
  /** What to type after the name (`argument-hint`, or `arguments` joined), if the file says. */
  readonly argumentHint?: string;
  readonly file: string;
  readonly origin: SetupFileOrigin;
  /** The folder it was found in, as a person names it. */
  readonly source: string;
  readonly shown: string;
  /** The text after the front matter. */
  readonly body: string;
}

/**
 * The custom commands of the places, sorted by name; on a name clash the earlier folder wins
 * ({@link foldersOf}). `.claude/commands` (and Braid's `commands` folders) hold `**\/*.md`, a
 * sub-folder joined to the name with `:`; `.github/prompts` holds VS Code's `*.prompt.md`.
 */
export function discoverCommands(places: SetupPlaces): Discovery<CustomCommand> {
  const found: CustomCommand[] = [];
  const problems: SetupProblem[] = [];
  for (const folder of foldersOf('commands', places)) {
    if (!folderPresent(folder)) continue;
    const promptFiles = path.basename(folder.dir) === 'prompts';
    for (const { file, segments } of commandFiles(folder, promptFiles)) {
      const shown = shownPath(file, places.workspaceDir, places.home);
      if (!segments.every((s) => SEGMENT.test(s))) {
        problems.push({ file: shown, reason: 'its name is not letters, digits, "_", "-" and "." (it could not be typed after /)' });
        continue;
      }
      try {
        found.push(readCommand(file, segments.join(':'), folder, shown));
      } catch (err) {
        problems.push({ file: shown, reason: errorMessage(err) });
      }
    }
  }
  return firstOfEachName(found, problems);
}

function commandFiles(folder: SetupFolder, promptFiles: boolean): { file: string; segments: string[] }[] {
  const out: { file: string; segments: string[] }[] = [];
  const walk = (dir: string, prefix: string[]) => {
    const { folders, files } = folderEntries(dir, folder);
    for (const f of files) {
      if (promptFiles ? f.endsWith('.prompt.md') && f.length > 10 : f.endsWith('.md') && f.length > 3)
        out.push({ file: path.join(dir, f), segments: [...prefix, f.slice(0, promptFiles ? -10 : -3)] });
    }
    if (!promptFiles && prefix.length < MAX_DEPTH) for (const sub of folders) walk(path.join(dir, sub), [...prefix, sub]);
  };
  walk(folder.dir, []);
  return out;
}

function readCommand(file: string, name: string, folder: SetupFolder, shown: string): CustomCommand {
  const { fields, raw, body } = readFrontMatter(readSetupText(file, folder, MAX_COMMAND_BYTES));
  const text = body.replace(/^\s*\n/, '').trimEnd();
  // Claude Code describes a command without a description by its first line.
  const firstLine =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  const description = (textField(fields, 'description') ?? firstLine.replace(/^#+\s*/, '')).replace(/\s+/g, ' ').trim().slice(0, 200);
  const hint = raw.get('argument-hint') || textField(fields, 'arguments');
  return {
    name,
    description,
    ...(hint ? { argumentHint: hint.replace(/^"(.*)"$/, '$1') } : {}),
    file,
    origin: folder.origin,
    source: folder.label,
    shown,
    body: text,
  };
}

/** What a prompt typed as `/name args` is. */
export interface SlashInvocation {
  readonly name: string;
  readonly args: string;
}

/** `/name args` read from a prompt; null when the prompt does not start with a command name (`/usr/bin …`, `//x`). */
export function slashInvocation(text: string): SlashInvocation | null {
  const m = /^\/([\w][\w.:-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1]!, args: (m[2] ?? '').trim() } : null;
}

/**
 * The prompt a command sends: its body with Claude Code's `$ARGUMENTS` (everything typed after
 * the name) and `$1`..`$9` (the words, "quoted words" kept together) filled in, and VS Code's
 * `${input:name}` filled from a `name=value` word (left as written otherwise). A body that uses
 * none of `$ARGUMENTS` and `$1`..`$9` gets the arguments at its end. Nothing in it is run: a
 * `!` shell line stays text. The first line is what the user typed, so the transcript shows it.
 */
export function expandCommand(command: CustomCommand, args: string): string {
  const words = splitWords(args);
  const named = new Map<string, string>();
  for (const w of words) {
    const m = /^([\w-]+)=([\s\S]*)$/.exec(w);
    if (m) named.set(m[1]!, m[2]!);
  }
  const positional = /\$(ARGUMENTS\b|[1-9])/.test(command.body);
  let body = command.body.replace(/\$(ARGUMENTS\b|[1-9])/g, (_m, what: string) => (what === 'ARGUMENTS' ? args : (words[Number(what) - 1] ?? '')));
  body = body.replace(/\$\{input:([\w-]+)(?::[^}]*)?\}/g, (whole, key: string) => named.get(key) ?? whole);
  if (!positional && args) body = `${body}\n\nARGUMENTS: ${args}`;
  const typed = args ? `/${command.name} ${args}` : `/${command.name}`;
  return `${typed}\n\n${body}`;
}

/** A prompt `/name …` whose name is no command here. */
export class UnknownCommandError extends Error {
  override readonly name = 'UnknownCommandError';
}

/**
 * The prompt a typed line sends: "/name args" is the command's expansion ({@link expandCommand}),
 * "//x" is "/x", any other line as typed. Throws UnknownCommandError for a "/name" that names
 * no command of `commands`.
 */
export function typedPrompt(text: string, commands: readonly CustomCommand[]): string {
  if (text.startsWith('//')) return text.slice(1);
  const call = slashInvocation(text);
  if (!call) return text;
  const command = commands.find((c) => c.name === call.name);
  if (!command) throw new UnknownCommandError(`/${call.name} is not a command here`);
  return expandCommand(command, call.args);
}

/** Words of an argument line: split at spaces, a "double" or 'single' quoted part kept whole. */
function splitWords(args: string): string[] {
  const words: string[] = [];
  for (const m of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}
