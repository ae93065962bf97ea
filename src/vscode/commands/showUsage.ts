import type { UsagePanel } from '../usage/usagePanel';
import type { BraidCommand } from './command';

/** Braid: Show Usage (and the Chat view's /usage): the Usage view, calls, tokens and cost each model call counted once. */
export function showUsageCommand(view: UsagePanel): BraidCommand {
  return { id: 'braid.showUsage', run: () => view.show() };
}
