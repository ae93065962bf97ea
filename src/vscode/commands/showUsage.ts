import type { SessionStore } from '../../core/store/sessionStore';
import type { UsagePanel } from '../usage/usagePanel';
import type { BraidCommand } from '../braidCommand';
import type { CommandContext } from './commandContext';

/**
 * Braid: Show Usage (and the Chat view's /usage): the Usage view, calls, tokens and cost each
 * model call counted once. The view is made, over the store, the first time it is asked for.
 */
export function showUsageCommand(ctx: CommandContext, makeView: (store: SessionStore) => UsagePanel): BraidCommand {
  let view: UsagePanel | undefined;
  return {
    id: 'braid.showUsage',
    run: () => {
      view ??= makeView(ctx.requireStore());
      view.show();
    },
  };
}
