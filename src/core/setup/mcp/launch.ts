import { modelKeyVariables } from '../../process/childEnvironment';
import type { McpServerDefinition } from './definitions';

// How a server is started or reached: its definition with `${VAR}` and `${VAR:-default}` expanded
// from the user's environment (as Claude Code expands `.mcp.json`), and the environment a server
// program gets: a small base (PATH, HOME and the like) and what its definition names, never the
// rest of Braid's environment and never a model key Braid holds.

/** Variables a server program gets from the user's environment without naming them. */
const BASE_VARIABLES =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'TMP',
        'USERNAME',
        'USERPROFILE',
        'PROGRAMFILES',
        'COMSPEC',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'TMPDIR'];

/** A definition ready to start: every value expanded. */
export interface McpLaunch {
  readonly transport: McpServerDefinition['transport'];
  readonly command?: string;
  readonly args: readonly string[];
  /** The whole environment of a server program (base and its own variables). */
  readonly env: Readonly<Record<string, string>>;
  readonly url?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly cwd: string;
}

/** A definition that cannot start as written (a variable that is not set, or one a project may not read). */
export class LaunchError extends Error {}

/**
 * Expands a definition for starting. `fromProject`: a project's definition may not read a model
 * key variable (its approval shows variable names, not values, so it must not be able to route a
 * key to a program of its choosing).
 */
export function launchOf(definition: McpServerDefinition, userEnv: NodeJS.ProcessEnv, cwd: string, fromProject: boolean): McpLaunch {
  const forbidden = fromProject ? new Set([...modelKeyVariables()].map((n) => n.toUpperCase())) : new Set<string>();
  const expand = (text: string) => expandVariables(text, userEnv, forbidden);
  const own = Object.fromEntries(Object.entries(definition.env).map(([k, v]) => [k, expand(v)]));
  return {
    transport: definition.transport,
    ...(definition.command !== undefined ? { command: expand(definition.command) } : {}),
    args: definition.args.map(expand),
    env: { ...baseEnvironment(userEnv), ...own },
    ...(definition.url !== undefined ? { url: expand(definition.url) } : {}),
    headers: Object.fromEntries(Object.entries(definition.headers).map(([k, v]) => [k, expand(v)])),
    cwd,
  };
}

/** The base every server program gets: the variables of BASE_VARIABLES that are set (shell functions left out). */
export function baseEnvironment(userEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of BASE_VARIABLES) {
    const value = userEnv[name];
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}

/** `${VAR}` is the variable's value (an error when it is not set); `${VAR:-default}` falls back to the default. */
export function expandVariables(text: string, env: NodeJS.ProcessEnv, forbidden: ReadonlySet<string> = new Set()): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_whole, name: string, fallback: string | undefined) => {
    if (forbidden.has(name.toUpperCase())) throw new LaunchError(`a project's server may not read the model key variable ${name}`);
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new LaunchError(`the variable ${name} is not set (write \${${name}:-default} for a default)`);
  });
}
