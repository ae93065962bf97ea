import { isObject, type SetupOrigin } from '../settingsFiles';
import type { SetupSources } from '../sources';

// MCP server definitions in the shapes people already write: Claude Code's `mcpServers`
// (`{command, args, env}` for a program, `{type: "http"|"sse", url, headers}` for a remote server)
// and VS Code's `servers` (`{type: "stdio"|"http"|"sse", command, args, env, url, headers}`).
// Values keep their `${VAR}` references here; they are expanded when the server starts.

/** How Braid talks to a server: a program over stdin/stdout, Streamable HTTP (SSE as fallback), or the older SSE transport. */
export type McpTransport = 'stdio' | 'http' | 'sse';

/** One server as its settings file defines it (values not yet expanded). */
export interface McpServerDefinition {
  readonly transport: McpTransport;
  readonly command?: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly url?: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The deadline of one tool call (the definition's `timeout`, in seconds). */
  readonly callTimeoutMs: number;
}

/** A server of the setup: its name, where it was defined, and its definition or why it cannot be used. */
export interface McpServerEntry {
  readonly name: string;
  readonly origin: SetupOrigin;
  /** The settings file that defines it. */
  readonly file: string;
  readonly definition?: McpServerDefinition;
  /** Set when the definition is not usable: the sentence a person reads after the server's name. */
  readonly error?: string;
}

/** A tool call's deadline when the definition names none. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/**
 * Every server of the setup, by name. The user's definitions come first (Braid's user settings
 * file, then VS Code's `braid.mcpServers`), then the project's (`.mcp.json`, `.vscode/mcp.json`,
 * then the project's settings files); the first definition of a name wins, so a user's server of
 * the same name replaces the project's. Sorted by name.
 */
export function mcpServerEntries(sources: Pick<SetupSources, 'user' | 'project'>): McpServerEntry[] {
  const byName = new Map<string, McpServerEntry>();
  for (const source of [...sources.user, ...sources.project]) {
    for (const [name, raw] of Object.entries(source.settings.mcpServers ?? {})) {
      if (byName.has(name)) continue;
      const parsed = parseDefinition(raw);
      byName.set(name, { name, origin: source.origin, file: source.file, ...parsed });
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** One definition read from its JSON: a usable definition, or the error that says what is wrong. */
export function parseDefinition(raw: unknown): { definition: McpServerDefinition } | { error: string } {
  if (!isObject(raw)) return { error: 'the definition is not a JSON object' };
  const type = raw.type;
  if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'sse' && type !== 'streamable-http')
    return { error: `unknown "type" ${JSON.stringify(type)} (stdio, http or sse)` };
  const transport: McpTransport =
    type === 'sse' ? 'sse' : type === 'http' || type === 'streamable-http' || (type === undefined && raw.url !== undefined) ? 'http' : 'stdio';
  const args = raw.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) return { error: '"args" must be a list of strings' };
  const env = stringMap(raw.env, 'env');
  if (typeof env === 'string') return { error: env };
  const headers = stringMap(raw.headers, 'headers');
  if (typeof headers === 'string') return { error: headers };
  const timeout = raw.timeout;
  if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0) || timeout > 3600))
    return { error: '"timeout" must be a number of seconds between 0 and 3600' };
  const callTimeoutMs = typeof timeout === 'number' ? Math.round(timeout * 1000) : DEFAULT_CALL_TIMEOUT_MS;
  if (transport === 'stdio') {
    if (typeof raw.command !== 'string' || !raw.command.trim()) return { error: 'a stdio server needs a "command"' };
    return { definition: { transport, command: raw.command, args, env, headers: {}, callTimeoutMs } };
  }
  if (typeof raw.url !== 'string' || !raw.url.trim()) return { error: `an ${transport} server needs a "url"` };
  return { definition: { transport, url: raw.url, args: [], env: {}, headers, callTimeoutMs } };
}

function stringMap(value: unknown, key: string): Record<string, string> | string {
  if (value === undefined) return {};
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === 'string')) return `"${key}" must map names to strings`;
  return value as Record<string, string>;
}

/**
 * What the user approves of a project server: how it runs and where it connects, with the names
 * (not the values) of its variables and headers. A change to any of these asks again.
 */
export function approvedShape(definition: McpServerDefinition): Record<string, unknown> {
  return {
    type: definition.transport,
    command: definition.command ?? null,
    args: definition.args,
    env: Object.keys(definition.env).sort(),
    url: definition.url ?? null,
    headers: Object.keys(definition.headers).sort(),
  };
}

/** The item a project server's approval is recorded under. */
export function approvalItem(name: string): string {
  return `mcp:${name}`;
}
