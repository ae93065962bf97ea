import type { SetupDocument } from '../setup/setupView';
import type { BraidCommand } from '../braidCommand';

export const SHOW_SETUP_COMMAND = 'braid.showSetup';

/** Braid: Show Setup: where the window's MCP servers, hooks, rules, skills and commands come from (a read-only document). */
export function showSetupCommand(document: SetupDocument): BraidCommand {
  return { id: SHOW_SETUP_COMMAND, failure: 'Braid could not show its setup', run: () => document.show() };
}
