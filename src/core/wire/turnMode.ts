// Pure data, no import: the page takes these through src/protocol/modes.ts (eslint.config.mjs, `pureCoreModules`).

/**
 * A turn's mode: what the agent may do in it. Chosen in the composer, recorded in the turn's
 * `turn_begin` record, so a fork or a rewind knows what each turn was allowed.
 */
export type TurnMode = 'ask' | 'plan' | 'agent' | 'auto-edit';

/** What a turn ran with when its record names no mode (logs written before modes): today's behaviour. */
export const DEFAULT_MODE: TurnMode = 'agent';

/** The modes in the order the composer offers them, with what each allows. */
export const TURN_MODES: readonly { readonly id: TurnMode; readonly label: string; readonly description: string }[] = [
  { id: 'ask', label: 'Ask', description: 'Answers and reads files; changes nothing and runs no command' },
  { id: 'plan', label: 'Plan', description: 'Reads files and proposes a plan; nothing changes until you carry it out' },
  { id: 'agent', label: 'Agent', description: 'Reads, writes and runs commands, asking before each change and command' },
  { id: 'auto-edit', label: 'Auto-accept edits', description: 'Writes files without asking; commands still ask' },
];

export function isTurnMode(value: unknown): value is TurnMode {
  return TURN_MODES.some((m) => m.id === value);
}

/** The mode's name as the composer and the transcript show it. */
export function modeLabel(mode: TurnMode): string {
  return TURN_MODES.find((m) => m.id === mode)!.label;
}
