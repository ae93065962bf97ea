import { isFolder } from '../../core/fs/probe';
import { readSetupSources } from '../../core/setup/sources';
import { setupText } from '../../core/setup/setupText';
import { expectPositionals, parseArgs } from '../args';
import type { CliContext } from '../context';
import { cliMcpHub } from './mcp';

/** How long `braid setup --status` waits for a server to start and list its tools. */
const STATUS_START_TIMEOUT_MS = 10_000;

/**
 * `setup [--status]`: where this workspace's setup comes from (docs/setup.md): the settings files,
 * the MCP servers, hooks, permission rules, skills and commands as the running code reads them,
 * each project item saying whether it is used and how to approve it. With `--status` the servers
 * that may run are started (and ended after) so their state and tools are listed. The CLI runs
 * where its user chose to run it: the workspace counts as trusted.
 */
export async function setup(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseArgs(argv, { flags: ['status'] });
  expectPositionals(args, []);
  if (!isFolder(ctx.workspace)) throw new Error(`the workspace folder ${ctx.workspace} does not exist or is not a folder; give one with --workspace`);
  if (!args.options.has('status')) {
    ctx.out(setupText(readSetupSources({ workspaceDir: ctx.workspace, trusted: true, env }), { env }));
    return 0;
  }
  const hub = cliMcpHub(ctx, env, { quiet: true, startTimeoutMs: STATUS_START_TIMEOUT_MS });
  try {
    await hub.startAll();
    ctx.out(setupText(hub.sources, { hub, env }));
  } finally {
    await hub.close();
  }
  return 0;
}
