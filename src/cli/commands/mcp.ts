import path from 'node:path';
import { silentLogger } from '../../core/logger';
import { mcpServerEntries } from '../../core/setup/mcp/definitions';
import { McpHub, type McpServerStatus } from '../../core/setup/mcp/hub';
import { approvalCandidates, approveCandidate } from '../../core/setup/projectSetupApproval';
import { readSetupSources } from '../../core/setup/sources';
import { parseArgs, UsageError } from '../args';
import type { CliContext } from '../context';
import { jsonText, oneLine, shortLine } from '../terminalText';

declare const BRAID_VERSION: string | undefined;

/** How long `braid mcp list` waits for a server to start and list its tools. */
const LIST_START_TIMEOUT_MS = 10_000;

/** `mcp list [--json]` and `mcp trust <name>`: the MCP servers of the setup, and approving a project's server. */
export async function mcp(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'list') return list(ctx, rest, env);
  if (sub === 'trust') return trust(ctx, rest, env);
  throw new UsageError(sub ? `unknown mcp command "${sub}" (list or trust)` : 'expected "mcp list" or "mcp trust <name>"');
}

/** A hub for the CLI: the servers of the workspace the CLI runs in (the user chose to run there, so it is trusted). */
export function cliMcpHub(
  ctx: CliContext,
  env: NodeJS.ProcessEnv,
  options: { readonly quiet?: boolean; readonly startTimeoutMs?: number; readonly workspaceDir?: string } = {},
): McpHub {
  return new McpHub({
    sources: readSetupSources({ workspaceDir: options.workspaceDir ?? ctx.workspace, trusted: true, env }),
    env,
    logger: options.quiet ? silentLogger : ctx.logger,
    version: typeof BRAID_VERSION === 'string' ? BRAID_VERSION : 'dev',
    ...(options.startTimeoutMs ? { startTimeoutMs: options.startTimeoutMs } : {}),
  });
}

async function list(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseArgs(argv, { flags: ['json'], valued: [] });
  if (args.positionals.length) throw new UsageError('mcp list takes no names');
  const hub = cliMcpHub(ctx, env, { quiet: true, startTimeoutMs: LIST_START_TIMEOUT_MS });
  try {
    await hub.startAll();
    const statuses = hub.statuses();
    if (args.options.has('json'))
      ctx.out(`${jsonText(statuses.map((s) => ({ ...s, tools: s.tools.map((t) => ({ name: t.agentName, tool: t.name, description: t.description })) })))}\n`);
    else if (statuses.length === 0) ctx.out('no MCP servers: define them in .mcp.json, .vscode/mcp.json or your Braid settings file (docs/setup-mcp.md)\n');
    else for (const s of statuses) ctx.out(describe(ctx, s));
  } finally {
    await hub.close();
  }
  return 0;
}

function describe(ctx: CliContext, s: McpServerStatus): string {
  const where = s.origin === 'project' ? path.relative(ctx.workspace, s.file) : s.file;
  const state =
    s.state === 'unapproved'
      ? `unapproved (approve with: braid mcp trust ${s.name})`
      : s.state === 'running'
        ? `running, ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}`
        : s.error
          ? `${s.state}: ${s.error}`
          : s.state;
  const lines = [`${oneLine(s.name)}  ${s.origin}  ${oneLine(where)}  ${shortLine(state, 300)}`];
  for (const t of s.tools) lines.push(`  ${t.agentName}  ${shortLine(t.description, 100)}`);
  for (const e of s.toolErrors) lines.push(`  ${shortLine(e, 200)}`);
  return `${lines.join('\n')}\n`;
}

async function trust(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseArgs(argv, { flags: [], valued: [] });
  const [name] = args.positionals;
  if (!name || args.positionals.length > 1) throw new UsageError('expected "mcp trust <name>" (one server)');
  const sources = readSetupSources({ workspaceDir: ctx.workspace, trusted: true, env });
  const entry = mcpServerEntries(sources).find((e) => e.name === name);
  if (!entry) throw new Error(`there is no MCP server named "${oneLine(name)}" for ${oneLine(ctx.workspace)} (braid mcp list shows them)`);
  if (entry.origin !== 'project') throw new Error(`"${oneLine(name)}" is your own server (${oneLine(entry.file)}): it needs no approval`);
  if (!entry.definition) throw new Error(`"${oneLine(name)}" in ${oneLine(entry.file)} cannot be used: ${entry.error}`);
  // The same item and hash VS Code's Braid: Approve Project Setup… writes.
  const candidate = approvalCandidates(sources).find((c) => c.kind === 'mcp' && c.name === name);
  if (!candidate) throw new Error(`"${oneLine(name)}" is not a project server waiting for approval`);
  await approveCandidate(sources, candidate);
  ctx.out(
    `approved ${oneLine(name)} (${oneLine(path.relative(ctx.workspace, entry.file))}) for ${oneLine(ctx.workspace)}:\n${candidate.details.map((l) => `  ${oneLine(l)}\n`).join('')}`,
  );
  ctx.out('a change to its command, arguments, variable names, address or header names asks again\n');
  return 0;
}
