import path from 'node:path';
import { approvalItem, approvedShape, parseDefinition } from './mcp/definitions';
import { definitionHash } from './projectApprovals';
import { isObject, type SettingsSource } from './settingsFiles';
import { scanCommands, scanSkills, SETUP_FOLDERS, type FolderScan } from './setupFolders';
import type { SetupSources } from './sources';

// The setup as its sources hold it, as text: `braid setup` prints it and VS Code's Braid: Show
// Setup shows it as a read-only document. Each source is listed with what it defines (MCP servers,
// hooks, permission rules), then the skills and commands found; each project item says whether it
// is used and, if not, why and how to approve it. Values of environment variables and headers are
// never shown (they may be keys): only their names.

const UNTRUSTED = 'not used: the workspace is not trusted';
const HOOKS_APPROVAL = 'needs approval: braid hooks trust';

/** The setup of one workspace, source by source, as the user reads it. */
export function setupText(sources: SetupSources): string {
  const lines = [
    `Setup of ${sources.workspaceDir}`,
    sources.trusted
      ? 'The workspace is trusted: its servers and hooks run once you approve them.'
      : "The workspace is not trusted: the project's servers, hooks, rules, skills and commands are listed but not used.",
    '',
  ];
  const userServers = new Set(sources.user.flatMap((s) => Object.keys(s.settings.mcpServers ?? {})));
  for (const source of sources.user) lines.push(...sourceLines(source, sources, userServers), '');
  for (const source of sources.project) lines.push(...sourceLines(source, sources, userServers), '');
  if (sources.project.length === 0) lines.push('No project settings files (.mcp.json, .vscode/mcp.json, .claude/settings.json, .braid/settings.json).', '');
  lines.push(...folderLines(sources));
  return `${lines.join('\n')}\n`;
}

function sourceLines(source: SettingsSource, sources: SetupSources, userServers: ReadonlySet<string>): string[] {
  const project = source.origin === 'project';
  const title = project ? `Project: ${path.relative(sources.workspaceDir, source.file)}` : source.origin === 'user' ? `User: ${source.file}` : source.file;
  if (source.error) return [title, `  error: ${source.error}`];
  const settingsState = project ? projectSettingsState(source, sources) : undefined;
  const body = [
    ...serverLines(source, sources, userServers),
    ...hookLines(source.settings.hooks, settingsState),
    ...ruleLines(source.settings.permissions, project ? sources.trusted : true, settingsState),
  ];
  return [title, ...(body.length ? body : ['  nothing set'])];
}

function serverLines(source: SettingsSource, sources: SetupSources, userServers: ReadonlySet<string>): string[] {
  return Object.entries(source.settings.mcpServers ?? {}).map(([name, definition]) => {
    const line = `  MCP server ${name}: ${describeServer(definition)}`;
    if (source.origin !== 'project') return line;
    if (userServers.has(name)) return `${line} (not used: your own server of the same name is used)`;
    if (!sources.trusted) return `${line} (${UNTRUSTED})`;
    // The hash the hub starts a server by (braid mcp trust writes it): the parsed definition's approved shape.
    const parsed = parseDefinition(definition);
    if ('error' in parsed) return `${line} (not used: ${parsed.error})`;
    const approved = sources.approvals.isApproved(
      { workspace: sources.workspaceDir, item: approvalItem(name) },
      definitionHash(approvedShape(parsed.definition)),
    );
    return `${line} (${approved ? 'approved' : `needs approval: braid mcp trust ${name}`})`;
  });
}

/** A server's command and arguments or its address; the names of its environment variables and headers, never their values. */
function describeServer(definition: unknown): string {
  if (!isObject(definition)) return 'not an object (not used)';
  const names = (value: unknown, what: string) => (isObject(value) && Object.keys(value).length ? `; ${what} ${Object.keys(value).join(', ')}` : '');
  const args = Array.isArray(definition.args) ? definition.args.map(String) : [];
  if (typeof definition.command === 'string') return `${[definition.command, ...args].join(' ')}${names(definition.env, 'environment')}`;
  if (typeof definition.url === 'string')
    return `${typeof definition.type === 'string' ? definition.type : 'http'} ${definition.url}${names(definition.headers, 'headers')}`;
  return 'neither a command nor a url (not used)';
}

/** A project settings file's hooks and allow rules: used once the user approved that file's settings. */
function projectSettingsState(source: SettingsSource, sources: SetupSources): string {
  if (!sources.trusted) return UNTRUSTED;
  const item = `settings:${path.relative(sources.workspaceDir, source.file)}`;
  return sources.approvals.isApproved({ workspace: sources.workspaceDir, item }, definitionHash(source.settings)) ? 'approved' : HOOKS_APPROVAL;
}

function hookLines(hooks: unknown, state: string | undefined): string[] {
  if (hooks === undefined) return [];
  if (!isObject(hooks)) return ['  hooks: not an object (not used)'];
  const lines: string[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    for (const group of Array.isArray(groups) ? groups : [groups]) {
      const matcher = isObject(group) && typeof group.matcher === 'string' && group.matcher ? ` (matcher ${group.matcher})` : '';
      const commands = isObject(group) && Array.isArray(group.hooks) ? group.hooks : [];
      if (commands.length === 0) lines.push(`  Hook ${event}${matcher}: no commands`);
      for (const hook of commands) {
        const command = isObject(hook) && typeof hook.command === 'string' ? hook.command : 'not a command (not used)';
        lines.push(`  Hook ${event}${matcher}: ${command}${state ? ` (${state})` : ''}`);
      }
    }
  }
  return lines;
}

/** Rules by kind; a project's ask and deny apply in a trusted workspace, its allow only once its settings are approved. */
function ruleLines(permissions: unknown, trusted: boolean, state: string | undefined): string[] {
  if (permissions === undefined) return [];
  if (!isObject(permissions)) return ['  permissions: not an object (not used)'];
  const lines: string[] = [];
  for (const kind of ['deny', 'ask', 'allow'] as const) {
    const rules = permissions[kind];
    if (rules === undefined) continue;
    if (!Array.isArray(rules)) {
      lines.push(`  Rules ${kind}: not a list (not used)`);
      continue;
    }
    const note = state === undefined ? '' : !trusted ? ` (${UNTRUSTED})` : kind === 'allow' && state !== 'approved' ? ` (${HOOKS_APPROVAL})` : '';
    for (const rule of rules) lines.push(`  Rule ${kind}: ${typeof rule === 'string' ? rule : `${JSON.stringify(rule)} is not a string (not used)`}${note}`);
  }
  return lines;
}

/** Skills and commands, the project's (trusted workspaces only) then the user's. */
function folderLines(sources: SetupSources): string[] {
  const project = (scan: FolderScan, prefix: string) => scanLines(scan, prefix, sources.trusted ? '' : ` (${UNTRUSTED})`);
  const skills = [
    ...SETUP_FOLDERS.projectSkills.flatMap((folder) => project(scanSkills(sources.workspaceDir, folder), '')),
    ...scanLines(scanSkills(sources.userConfigDir, SETUP_FOLDERS.userSkills), '', '', sources.userConfigDir),
  ];
  const { folder, suffix } = SETUP_FOLDERS.userCommands;
  const commands = [
    ...SETUP_FOLDERS.projectCommands.flatMap((c) => project(scanCommands(sources.workspaceDir, c.folder, c.suffix), '/')),
    ...scanLines(scanCommands(sources.userConfigDir, folder, suffix), '/', '', sources.userConfigDir),
  ];
  return ['Skills', ...(skills.length ? skills : ['  none']), '', 'Commands', ...(commands.length ? commands : ['  none'])];
}

function scanLines(scan: FolderScan, prefix: string, note: string, root?: string): string[] {
  if (!scan) return [];
  const where = (relative: string) => (root ? path.join(root, relative) : relative);
  if ('error' in scan) return [`  error: ${scan.error}`];
  return [...scan.items.map((item) => `  ${prefix}${item.name}: ${where(item.path)}${note}`), ...scan.refused.map((why) => `  not used: ${where(why)}`)];
}
