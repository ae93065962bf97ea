import { DEFAULT_MODE, type TurnMode } from '../../src/protocol/modes';
import type { TranscriptEntry } from '../../src/protocol/frames';

// What the page derives of modes from its entries (no DOM: unit-tested).

/** Each mode's codicon, on the badge of the prompts of its turns. */
export const MODE_ICONS: Record<TurnMode, string> = { ask: 'question', plan: 'checklist', agent: 'hubot', 'auto-edit': 'check-all' };

/** The mode of the session's newest prompt (Agent when it names none): what a session shown again continues in. */
export function lastMode(entries: readonly { kind: string; mode?: TurnMode }[]): TurnMode {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.kind === 'user') return entries[i]!.mode ?? DEFAULT_MODE;
  return DEFAULT_MODE;
}

/**
 * The plan a finished Plan turn proposed: its answer, when the newest prompt ran in Plan mode and
 * an answer follows it; undefined otherwise (or while a turn runs).
 */
export function proposedPlan(entries: readonly (TranscriptEntry | { kind: string })[], running: boolean): string | undefined {
  if (running) return undefined;
  let plan: string | undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === 'assistant') plan ??= (e as { text: string }).text;
    else if (e.kind === 'user') return (e as { mode?: TurnMode }).mode === 'plan' && plan?.trim() ? plan : undefined;
    else if (e.kind === 'pending') return undefined;
  }
  return undefined;
}
