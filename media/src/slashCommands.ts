import type { CustomCommandItem, SlashCommand } from '../../src/protocol/messages';

/** The slash commands the composer completes, with what each does. */
export const SLASH_HELP: readonly { readonly name: SlashCommand; readonly hint: string }[] = [
  { name: 'new', hint: 'Start a new session' },
  { name: 'sessions', hint: 'Open a session (search titles and prompts; /sessions word searches for word)' },
  { name: 'fork', hint: 'Fork this session' },
  { name: 'rewind', hint: 'Rewind to a prompt (with a preview of files)' },
  { name: 'edit', hint: 'Edit & resend your last prompt' },
  { name: 'btw', hint: 'Ask a side question that stays out of the conversation' },
  { name: 'goal', hint: 'Work toward a goal, turn after turn, until the model says it is done (/goal text)' },
  { name: 'compact', hint: 'Summarize the older part of the conversation (optionally: /compact focus)' },
  { name: 'remember', hint: 'Update the session memory: the model notes the durable facts' },
  { name: 'memory', hint: 'Show and edit the session memory' },
  { name: 'history', hint: 'Pick one of your earlier prompts' },
  { name: 'model', hint: 'Select the model' },
  { name: 'usage', hint: 'Show token usage and cost' },
];

/** The commands that take what follows them: /compact's focus, /sessions' search. */
const TAKES_ARGUMENT: ReadonlySet<SlashCommand> = new Set(['compact', 'sessions']);

/** A line of the `/` menu: a built-in command, or a custom one (its hint says where it is from). */
export interface SlashChoice {
  readonly name: string;
  readonly hint: string;
}

/** The `/` menu: the built-in commands, then the custom ones (an MCP server's prompts last) whose names no built-in has. */
export function slashChoices(custom: readonly CustomCommandItem[] = []): SlashChoice[] {
  const builtIn = new Set<string>(SLASH_HELP.map((c) => c.name));
  const extra = custom
    .filter((c) => !builtIn.has(c.name.toLowerCase()))
    .map((c) => ({ name: c.name, hint: `${c.argumentHint ? `${c.argumentHint}  ` : ''}${c.description} (${c.server ? `MCP server ${c.server}` : c.origin})` }));
  return [...SLASH_HELP, ...extra];
}

/** The commands matching what the user typed so far ("/fo" -> fork), or none when it is not a command. */
export function completions(input: string, custom: readonly CustomCommandItem[] = []): SlashChoice[] {
  const m = /^\/([\w.:-]*)$/.exec(input);
  if (!m) return [];
  const typed = m[1]!.toLowerCase();
  return slashChoices(custom).filter((c) => c.name.toLowerCase().startsWith(typed));
}

/** What a line typed into the composer asks for. */
export type Parsed =
  | { readonly kind: 'prompt'; readonly text: string }
  | { readonly kind: 'command'; readonly name: Exclude<SlashCommand, 'btw' | 'goal'>; readonly arg?: string }
  | { readonly kind: 'btw'; readonly question: string }
  /** `/goal text`: a prompt sent as a goal (automatic turns follow until it is done). */
  | { readonly kind: 'goal'; readonly text: string }
  /** A custom command: `text` (as typed) goes to the host, which sends the command's expansion. */
  | { readonly kind: 'custom'; readonly text: string }
  | { readonly kind: 'error'; readonly message: string };

/** Reads the composer's text: a slash command (built-in, then custom), a side question, or a prompt. `//x` sends "/x". */
export function parseInput(raw: string, custom: readonly CustomCommandItem[] = []): Parsed {
  const text = raw.trim();
  if (text.startsWith('//')) return { kind: 'prompt', text: text.slice(1) };
  const m = /^\/([\w][\w.:-]*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return { kind: 'prompt', text };
  const name = m[1]!.toLowerCase();
  const rest = (m[2] ?? '').trim();
  if (name === 'btw') return rest ? { kind: 'btw', question: rest } : { kind: 'error', message: 'Type the side question after /btw.' };
  if (name === 'goal') return rest ? { kind: 'goal', text: rest } : { kind: 'error', message: 'Type the goal after /goal.' };
  const known = SLASH_HELP.find((c) => c.name === name);
  if (!known) {
    // An MCP server's prompt goes to the host even before the menu listed it: the host asks the servers.
    if (custom.some((c) => c.name === m[1]) || m[1]!.startsWith('mcp__')) return { kind: 'custom', text };
    return {
      kind: 'error',
      message: `Unknown command /${m[1]}. Commands: ${slashChoices(custom)
        .map((c) => `/${c.name}`)
        .join(' ')} (start with // to send a slash).`,
    };
  }
  if (rest && !TAKES_ARGUMENT.has(known.name)) return { kind: 'error', message: `/${known.name} takes no argument.` };
  return { kind: 'command', name: known.name as Exclude<SlashCommand, 'btw' | 'goal'>, ...(rest ? { arg: rest } : {}) };
}
