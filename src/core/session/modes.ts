import type { TurnMode } from '../wire/turnMode';

/**
 * What the model is told of its turn's mode, as a one-shot reminder in the user message; none in
 * Agent mode. Every mode is offered the same tools (the prompt's beginning stays the same); the
 * approval gate enforces the mode whatever the model calls.
 */
export function modeReminder(mode: TurnMode): string | undefined {
  switch (mode) {
    case 'ask':
      return 'This turn runs in Ask mode: answer the question. You may read files (read_file, list_dir, glob, grep); you cannot change files or run commands (they are refused), so do not offer to.';
    case 'plan':
      return [
        'This turn runs in Plan mode: investigate with the tools that read (read_file, list_dir, glob, grep) and propose a plan; change nothing: writes and commands are refused.',
        'End your answer with the plan as a numbered list of concrete steps (the files to change and how, the commands to run, how to check the result).',
        'Nothing is written and no command runs until the user carries out the plan in a later turn.',
      ].join('\n');
    case 'auto-edit':
      return 'This turn runs in Auto-accept edits mode: file writes and edits apply without asking the user; commands still need their approval.';
    case 'agent':
      return undefined;
  }
}
