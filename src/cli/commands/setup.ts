import { isFolder } from '../../core/fs/probe';
import { readSetupSources } from '../../core/setup/sources';
import { setupText } from '../../core/setup/setupText';
import { expectPositionals, parseArgs } from '../args';
import type { CliContext } from '../context';

/**
 * `setup`: where this workspace's setup comes from (docs/setup.md): each settings source with its
 * MCP servers, hooks and permission rules, then the skills and commands found, each project item
 * saying whether it is used and how to approve it. The CLI runs where its user chose to run it: the
 * workspace counts as trusted. Reads only.
 */
export async function setup(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  expectPositionals(parseArgs(argv, {}), []);
  if (!isFolder(ctx.workspace)) throw new Error(`the workspace folder ${ctx.workspace} does not exist or is not a folder; give one with --workspace`);
  ctx.out(setupText(readSetupSources({ workspaceDir: ctx.workspace, trusted: true, env })));
  return 0;
}
