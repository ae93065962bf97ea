import os from 'node:os';
import path from 'node:path';
import { readSource, SourceRefusedError } from '../fs/sourceFile';

// The files a developer's setup lives in, in the shapes they already write: Braid's user
// settings file and VS Code's user settings (`braid.mcpServers`, `braid.hooks`,
// `braid.permissions`) for the user; Claude Code's and Braid's project files for the project.
// A project file is data a stranger may have written: it is read without following a link,
// only if it is a regular file of at most MAX_SETTINGS_BYTES, and a broken one is reported,
// never fatal.

/** Where a piece of setup came from: the user's own (trusted) or the project's (needs trust and approval). */
export type SetupOrigin = 'user' | 'vscode' | 'project';

/** The keys Braid reads from a settings file; anything else in it is ignored. */
export interface SetupSettings {
  readonly mcpServers?: Readonly<Record<string, unknown>>;
  readonly hooks?: unknown;
  readonly permissions?: unknown;
}

/** One settings file as read: what it holds, or why it could not be read. */
export interface SettingsSource {
  readonly origin: SetupOrigin;
  /** The file's path (for VS Code's settings: "VS Code user settings"). */
  readonly file: string;
  readonly settings: SetupSettings;
  /** Set when the file exists but could not be used: the sentence a person reads after its name. */
  readonly error?: string;
}

/** Larger settings files are refused: a project cannot make Braid read a huge file at every turn. */
export const MAX_SETTINGS_BYTES = 1024 * 1024;

/** The project's settings files with hooks and permission rules, in the order they are read. */
export const PROJECT_SETTINGS_FILES = ['.claude/settings.json', '.claude/settings.local.json', '.braid/settings.json'] as const;

/** The project's MCP server files and the key each keeps its servers under (Claude Code's, VS Code's). */
export const PROJECT_MCP_FILES = [
  { file: '.mcp.json', key: 'mcpServers' },
  { file: '.vscode/mcp.json', key: 'servers' },
] as const;

/** The folder of Braid's user configuration: `$XDG_CONFIG_HOME/braid`, by default `~/.config/braid`. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'braid');
}

/** Braid's user settings file (`mcpServers`, `hooks`, `permissions`), read by the CLI and by VS Code. */
export function userSettingsFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userConfigDir(env), 'settings.json');
}

/**
 * Reads a settings file found under `root` (the workspace, or the user's configuration folder).
 * Undefined when there is no such file; a file that is not a regular file, too large, not JSON or
 * not an object comes back with `error` and empty settings.
 */
export function readSettingsFile(root: string, relative: string, origin: SetupOrigin): SettingsSource | undefined {
  const file = path.join(root, relative);
  const parsed = readJsonObject(root, file);
  if (parsed === undefined) return undefined;
  if ('error' in parsed) return { origin, file, settings: {}, error: parsed.error };
  const { mcpServers, hooks, permissions } = parsed.value;
  const settings: SetupSettings = {
    ...(isObject(mcpServers) ? { mcpServers } : {}),
    ...(hooks !== undefined ? { hooks } : {}),
    ...(permissions !== undefined ? { permissions } : {}),
  };
  return { origin, file, settings };
}

/** The project's MCP server files as settings sources (`servers` of `.vscode/mcp.json` read as `mcpServers`). */
export function readProjectMcpFiles(workspaceDir: string): SettingsSource[] {
  const out: SettingsSource[] = [];
  for (const { file: relative, key } of PROJECT_MCP_FILES) {
    const file = path.join(workspaceDir, relative);
    const parsed = readJsonObject(workspaceDir, file);
    if (parsed === undefined) continue;
    if ('error' in parsed) out.push({ origin: 'project', file, settings: {}, error: parsed.error });
    else {
      const servers = parsed.value[key];
      if (servers !== undefined && !isObject(servers)) out.push({ origin: 'project', file, settings: {}, error: `"${key}" is not an object` });
      else out.push({ origin: 'project', file, settings: isObject(servers) ? { mcpServers: servers } : {} });
    }
  }
  return out;
}

/** The project's settings files (hooks, permissions, and any `mcpServers` they hold). */
export function readProjectSettingsFiles(workspaceDir: string): SettingsSource[] {
  return PROJECT_SETTINGS_FILES.flatMap((relative) => readSettingsFile(workspaceDir, relative, 'project') ?? []);
}

/** The user's settings file, if there is one. */
export function readUserSettingsFile(env: NodeJS.ProcessEnv = process.env): SettingsSource | undefined {
  const file = userSettingsFile(env);
  return readSettingsFile(path.dirname(file), path.basename(file), 'user');
}

type JsonRead = { value: Record<string, unknown> } | { error: string };

function readJsonObject(root: string, file: string): JsonRead | undefined {
  let text: string;
  try {
    text = readSource(file, root, MAX_SETTINGS_BYTES).toString('utf8');
  } catch (err) {
    if (err instanceof SourceRefusedError && /no such file/.test(err.message)) return undefined;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    return { error: err instanceof SourceRefusedError ? `not read: ${err.message}` : `not read: ${(err as Error).message}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(stripJsonComments(text));
  } catch (err) {
    return { error: `not valid JSON (${(err as Error).message})` };
  }
  return isObject(value) ? { value } : { error: 'not a JSON object' };
}

/** VS Code's JSON files allow comments and trailing commas; strings are left alone. */
export function stripJsonComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      out += ' ';
    } else if (c === ',' && /^\s*[}\]]/.test(text.slice(i + 1, i + 200))) {
      // a trailing comma: dropped
    } else out += c;
  }
  return out;
}

/** A plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
