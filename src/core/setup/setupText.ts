import path from 'node:path';
import { silentLogger } from '../logger';
import { readHooks, type HookCommand } from './hooks/hookConfig';
import { mcpServerEntries, parseDefinition, type McpServerDefinition } from './mcp/definitions';
import { McpHub, type McpServerStatus } from './mcp/hub';
import { PermissionRules, type ListedRule } from './permissions/permissionRules';
import type { SettingsSource } from './settingsFiles';
import { discoverCommands } from './skills/commands';
import { setupPlaces } from './skills/places';
import { discoverSkills, type Discovery } from './skills/skills';
import type { SetupSources } from './sources';

// The setup as the running code sees it, as text: `braid setup` prints it and VS Code's Braid: Show
// Setup shows it as a read-only document. Every part comes from the function that part's code
// uses (the hub's servers and their status, the hooks reader, the permission rules, the skills and
// commands discovery), so the listing cannot say something runs that does not. Each item names
// where it came from; each project item not used says why. Values of environment variables and
// headers are never shown (they may be keys): only their names.

/** How the listing is made: the hub whose servers' status it shows, and how the host approves. */
export interface SetupTextOptions {
  /** The window's (or process's) hub: servers are listed with its status (running, failed, tools). None: as a hub not yet started sees them. */
  readonly hub?: McpHub;
  /** For the home folder (`~/.claude`); the process's when absent. */
  readonly env?: NodeJS.ProcessEnv;
  /** What to do to approve a project's server or settings file, as this host says it. */
  readonly approveWith?: { server(name: string): string; settings: string };
}

const UNTRUSTED = 'not used: the workspace is not trusted';
const CLI_APPROVAL = { server: (name: string) => `braid mcp trust ${name}`, settings: 'braid hooks trust' };

/** The setup of one workspace, part by part, as the user reads it. */
export function setupText(sources: SetupSources, options: SetupTextOptions = {}): string {
  const env = options.env ?? process.env;
  const approve = options.approveWith ?? CLI_APPROVAL;
  const hub = options.hub ?? new McpHub({ sources, env, logger: silentLogger });
  const lines = [
    `Setup of ${sources.workspaceDir}`,
    sources.trusted
      ? "The workspace is trusted: the project's servers, hooks and allow rules are used once you approve them."
      : "The workspace is not trusted: the project's servers, hooks, rules, skills and commands are listed but not used.",
    '',
    ...section(
      'Settings files',
      [...sources.user, ...sources.project].map((s) => fileLine(sources, s)),
    ),
    ...section('MCP servers', serverLines(sources, hub.statuses(), approve)),
    ...section('Hooks', hookLines(sources, approve)),
    ...section('Permission rules', ruleLines(sources, approve)),
    ...discoveredLines(sources, env),
  ];
  return `${lines.join('\n')}\n`;
}

function section(title: string, body: readonly string[]): string[] {
  return [title, ...(body.length ? body : ['  none']), ''];
}

/** A project file relative to the workspace; the user's as they are. */
function shown(sources: SetupSources, file: string): string {
  const relative = path.relative(sources.workspaceDir, file);
  return path.isAbsolute(file) && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : file;
}

function origin(sources: SetupSources, item: { origin: string; file: string }): string {
  return `[${item.origin}: ${shown(sources, item.file)}]`;
}

function fileLine(sources: SetupSources, source: SettingsSource): string {
  const line = `  ${source.origin}: ${shown(sources, source.file)}`;
  return source.error ? `${line}: ${source.error} (not used)` : line;
}

function serverLines(sources: SetupSources, statuses: readonly McpServerStatus[], approve: SetupTextOptions['approveWith'] & object): string[] {
  const entries = new Map(mcpServerEntries(sources).map((e) => [e.name, e]));
  const lines: string[] = [];
  for (const status of statuses) {
    const definition = entries.get(status.name)?.definition;
    const what = definition ? describeServer(definition) : 'its definition is not valid';
    lines.push(`  ${status.name}: ${what} ${origin(sources, status)} (${serverState(status, approve)})`);
    for (const tool of status.tools) lines.push(`    ${tool.agentName}: ${oneLineOf(tool.description, 100)}`);
    for (const problem of status.toolErrors) lines.push(`    not used: ${oneLineOf(problem, 200)}`);
  }
  // A name defined twice: the first definition (the user's before the project's) is the one used.
  for (const source of [...sources.user, ...sources.project]) {
    for (const name of Object.keys(source.settings.mcpServers ?? {})) {
      const used = entries.get(name);
      if (!used || used.file === source.file) continue;
      const parsed = parseDefinition(source.settings.mcpServers![name]);
      const what = 'definition' in parsed ? describeServer(parsed.definition) : parsed.error;
      lines.push(`  ${name}: ${what} ${origin(sources, source)} (not used: the server of the same name in ${shown(sources, used.file)} is used)`);
    }
  }
  return lines;
}

function serverState(status: McpServerStatus, approve: { server(name: string): string }): string {
  switch (status.state) {
    case 'running':
      return `running, ${status.tools.length} tool${status.tools.length === 1 ? '' : 's'}`;
    case 'unapproved':
      return `needs approval: ${approve.server(status.name)}`;
    case 'untrusted':
      return UNTRUSTED;
    case 'invalid':
      return `not used: ${status.error ?? 'its definition is not valid'}`;
    case 'failed':
      return `failed: ${oneLineOf(status.error ?? 'no reason given', 300)}`;
    case 'starting':
      return 'starting';
    default:
      return status.error ? `not running: ${oneLineOf(status.error, 300)}` : 'not started: it starts when a session needs its tools';
  }
}

/** How a server runs or where it connects; the names of its variables and headers, never their values. */
function describeServer(d: McpServerDefinition): string {
  const names = (map: Readonly<Record<string, string>>, what: string) => (Object.keys(map).length ? `; ${what} ${Object.keys(map).sort().join(', ')}` : '');
  return d.transport === 'stdio'
    ? `${[d.command, ...d.args].join(' ')}${names(d.env, 'environment')}`
    : `${d.transport} ${d.url}${names(d.headers, 'headers')}`;
}

function hookLines(sources: SetupSources, approve: { settings: string }): string[] {
  const { hooks, problems } = readHooks(sources);
  const state = (hook: HookCommand) => (hook.runs ? '' : ` (${notApprovedYet(sources, approve)})`);
  return [
    ...hooks.map((h) => `  ${h.event}${h.matcher ? ` (matcher ${h.matcher})` : ''}: ${h.command} ${origin(sources, h)}${state(h)}`),
    ...problems.map((p) => `  not used: ${shownProblem(sources, p)}`),
  ];
}

/** Rules by kind, deny first; a project's allow rule applies only once its file is approved. */
function ruleLines(sources: SetupSources, approve: { settings: string }): string[] {
  const rules = PermissionRules.fromSources(sources);
  const state = (rule: ListedRule) => (rule.applies ? '' : ` (${notApprovedYet(sources, approve)})`);
  const byKind = ['deny', 'ask', 'allow'].flatMap((kind) => rules.rules.filter((r) => r.kind === kind));
  return [
    ...byKind.map((r) => `  ${r.kind} ${r.rule.text} ${origin(sources, r)}${state(r)}`),
    ...rules.problems.map((p) => `  not used: ${shownProblem(sources, p)}`),
  ];
}

function notApprovedYet(sources: SetupSources, approve: { settings: string }): string {
  return sources.trusted ? `needs approval: ${approve.settings}` : UNTRUSTED;
}

/** A problem names its file first: a project's is shown relative to the workspace. */
function shownProblem(sources: SetupSources, problem: string): string {
  return problem.startsWith(`${sources.workspaceDir}${path.sep}`) ? problem.slice(sources.workspaceDir.length + 1) : problem;
}

/**
 * Skills and commands as a session finds them. A project's are looked for in an untrusted
 * workspace too (read only, without following links), to be listed as not used.
 */
function discoveredLines(sources: SetupSources, env: NodeJS.ProcessEnv): string[] {
  const places = setupPlaces(sources.workspaceDir, true, sources.userConfigDir, env);
  const note = (item: { origin: string }) => (item.origin === 'project' && !sources.trusted ? ` (${UNTRUSTED})` : '');
  const lines = <T extends { name: string; origin: string; shown: string; source: string }>(found: Discovery<T>, prefix: string) => [
    ...found.items.map((i) => `  ${prefix}${i.name}: ${i.shown} [${i.origin}: ${i.source}]${note(i)}`),
    ...found.shadowed.map((s) => `  not used: ${s.item.shown}: ${prefix}${s.by.name} in ${s.by.shown} is used`),
    ...found.problems.map((p) => `  not used: ${p.file}: ${p.reason}`),
  ];
  return [...section('Skills', lines(discoverSkills(places), '')), ...section('Commands', lines(discoverCommands(places), '/')).slice(0, -1)];
}

function oneLineOf(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
