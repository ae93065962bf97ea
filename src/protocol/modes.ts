// The modes the page offers are the core's (src/core/wire/turnMode.ts, pure data the page may bundle).
export { DEFAULT_MODE, isTurnMode, modeLabel, TURN_MODES, type TurnMode } from '../core/wire/turnMode';

/** The prompt that carries out a plan a Plan turn proposed (the "Carry Out Plan" button sends it, in Agent mode). */
export function carryOutPlanPrompt(plan: string): string {
  return `Carry out this plan:\n\n${plan.trim()}`;
}
