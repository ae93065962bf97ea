import type { SlashCommand } from '../../src/protocol/messages';

/** The slash commands the composer completes, with what each does. */
export const SLASH_HELP: readonly { readonly name: SlashCommand; readonly hint: string }[] = [
  { name: 'new', hint: 'Start a new session' },
  { name: 'sessions', hint: 'Open a session (search titles and prompts)' },
  { name: 'fork', hint: 'Fork this session' },
  { name: 'rewind', hint: 'Rewind to a prompt (with a preview of files)' },
  { name: 'edit', hint: 'Edit & resend your last prompt' },
  { name: 'btw', hint: 'Ask a side question that stays out of the conversation' },
  { name: 'compact', hint: 'Summarize the older part of the conversation (optionally: /compact focus)' },
  { name: 'history', hint: 'Pick one of your earlier prompts' },
  { name: 'model', hint: 'Select the model' },
  { name: 'usage', hint: 'Show token usage and cost' },
];

/** The commands matching what the user typed so far ("/fo" -> fork), or none when it is not a command. */
export function completions(input: string): typeof SLASH_HELP {
  const m = /^\/(\w*)$/.exec(input);
  if (!m) return [];
  return SLASH_HELP.filter((c) => c.name.startsWith(m[1]!.toLowerCase()));
}

/** What a line typed into the composer asks for. */
export type Parsed =
  | { readonly kind: 'prompt'; readonly text: string }
  | { readonly kind: 'command'; readonly name: Exclude<SlashCommand, 'btw'>; readonly arg?: string }
  | { readonly kind: 'btw'; readonly question: string }
  | { readonly kind: 'error'; readonly message: string };

/** Reads the composer's text: a slash command, a side question, or a prompt. `//x` sends "/x". */
export function parseInput(raw: string): Parsed {
  const text = raw.trim();
  if (text.startsWith('//')) return { kind: 'prompt', text: text.slice(1) };
  const m = /^\/(\w+)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return { kind: 'prompt', text };
  const name = m[1]!.toLowerCase();
  const rest = (m[2] ?? '').trim();
  if (name === 'btw') return rest ? { kind: 'btw', question: rest } : { kind: 'error', message: 'Type the side question after /btw.' };
  const known = SLASH_HELP.find((c) => c.name === name);
  if (!known)
    return { kind: 'error', message: `Unknown command /${name}. Commands: ${SLASH_HELP.map((c) => `/${c.name}`).join(' ')} (start with // to send a slash).` };
  if (rest && known.name !== 'compact') return { kind: 'error', message: `/${known.name} takes no argument.` };
  return { kind: 'command', name: known.name as Exclude<SlashCommand, 'btw'>, ...(rest ? { arg: rest } : {}) };
}
