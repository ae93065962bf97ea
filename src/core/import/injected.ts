import type { InjectedContext } from '../wire/records';
import type { SourceTool } from './source';

// The tools put context in their conversations as user-role messages that no person typed: their
// environment and instructions (Codex's `<environment_context>`, `<user_instructions>`, an
// AGENTS.md), reminders (`<system-reminder>`), a slash command's name and output (Claude Code's
// `<command-name>`, `<local-command-stdout>`), markers of an interruption. Such a message is kept
// verbatim (the model saw it) but is never a title or a turn's prompt. A wrapper is recognised by
// its opening tag: the tags below, and any tag whose name has a `-` or `_` (no HTML element's
// does), which covers wrappers a newer release adds.

/** Wrapper tags without a `-` or `_` that the tools use. */
const PLAIN_WRAPPERS = new Set(['instructions', 'permissions', 'environment', 'reminder', 'skill', 'subagent_notification']);

/** How far into a message its opening is looked for (a message of megabytes is not scanned). */
const OPENING = 512;

/** Wrappers that stand for something the person did (a slash command, a shell command): they begin a turn, as a prompt does. */
const TURN_STARTERS = new Set(['command-name', 'command-message', 'bash-input', 'user_shell_command']);

/**
 * What kind of injected context a user message's text is (its wrapper's tag, `interrupted`, or
 * `agents-md`), or null when it reads as something a person typed. Looks at its opening only.
 */
export function wrapperKind(text: string): string | null {
  const opening = text.slice(0, OPENING).trimStart();
  if (/^\[Request interrupted by user[^\]]*\]/.test(opening)) return 'interrupted';
  if (/^# AGENTS\.md\b/.test(opening)) return 'agents-md';
  const tag = /^<([A-Za-z][\w-]*)[\s>/]/.exec(opening)?.[1];
  if (!tag) return null;
  const name = tag.toLowerCase();
  return name.includes('-') || name.includes('_') || PLAIN_WRAPPERS.has(name) ? name : null;
}

/** The context record field for a message of `tool` whose kind is `kind`. */
export function injectedBy(tool: SourceTool, kind: string): InjectedContext {
  return { by: tool, kind };
}

/** Whether injected context of this kind begins a turn (a command the person ran) rather than joining one. */
export function startsTurn(kind: string): boolean {
  return TURN_STARTERS.has(kind);
}

/** Wrappers that carry what a command the person ran printed: they belong to the turn of that command. */
const OUTPUTS = new Set(['local-command-stdout', 'local-command-stderr', 'bash-stdout', 'bash-stderr']);

/** Whether injected context of this kind ends what came before it (a command's output, an interruption) rather than leading into what follows. */
export function closesTurn(kind: string): boolean {
  return OUTPUTS.has(kind) || isInterruption(kind);
}

/** Whether it marks the person stopping the turn it follows. */
export function isInterruption(kind: string): boolean {
  return kind === 'interrupted' || kind === 'turn_aborted';
}
