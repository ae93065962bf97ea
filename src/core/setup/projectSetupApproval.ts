import path from 'node:path';
import { readHooks } from './hooks/hookConfig';
import { approvalItem, mcpServerEntries, type McpServerDefinition, type McpServerEntry } from './mcp/definitions';
import { serverApprovalHash } from './mcp/serverApproval';
import { PermissionRules } from './permissions/permissionRules';
import { settingsHash, settingsItem } from './permissions/settingsApproval';
import type { SettingsSource } from './settingsFiles';
import type { SetupSources } from './sources';

// What of a project's setup waits for the user's approval, as the CLI (`braid mcp trust`,
// `braid hooks trust`) and VS Code (Braid: Approve Project Setup…) both approve it: the same items
// and hashes in the same approvals file, so either sees what the other approved.

/** One thing of a project's setup that runs programs or allows calls only once approved. */
export interface ApprovalCandidate {
  /** A project's MCP server, or a project settings file (its hooks and allow rules). */
  readonly kind: 'mcp' | 'settings';
  /** The server's name, or the settings file relative to the workspace. */
  readonly name: string;
  /** The settings file that defines it (absolute). */
  readonly file: string;
  /** The item of the approvals file (`mcp:<name>`, `settings:<file>`). */
  readonly item: string;
  /** The hash of the definition as it is now: what an approval records. */
  readonly hash: string;
  /** Whether the user approved it as it is now. */
  readonly approved: boolean;
  /** What would run or be allowed: a server's command, arguments and variable names; a file's hook commands and allow rules. */
  readonly details: readonly string[];
}

/**
 * The project's servers (valid ones, not replaced by the user's own of the same name) and settings
 * files with hooks or permissions, servers first, each with whether it is approved as it is now.
 */
export function approvalCandidates(sources: SetupSources): ApprovalCandidate[] {
  const servers = mcpServerEntries(sources).filter((e): e is McpServerEntry & { definition: McpServerDefinition } => e.origin === 'project' && !!e.definition);
  const files = sources.project.filter((s) => !s.error && (s.settings.hooks !== undefined || s.settings.permissions !== undefined));
  return [...servers.map((e) => serverCandidate(sources, e)), ...files.map((s) => settingsCandidate(sources, s))];
}

/** The candidates not approved as they are now (those a trusted workspace would ask about). */
export function pendingApprovals(sources: SetupSources): ApprovalCandidate[] {
  return approvalCandidates(sources).filter((c) => !c.approved);
}

/** Records the user's approval of a candidate as it is now. */
export async function approveCandidate(sources: SetupSources, candidate: ApprovalCandidate): Promise<void> {
  await sources.approvals.approve({ workspace: sources.workspaceDir, item: candidate.item }, candidate.hash);
}

/** Forgets the user's approval of a candidate: it asks again. */
export async function revokeCandidate(sources: SetupSources, candidate: ApprovalCandidate): Promise<void> {
  await sources.approvals.revoke({ workspace: sources.workspaceDir, item: candidate.item });
}

/** A server's command, arguments and variable names (or address and header names): what its approval covers. */
export function serverDetails(definition: McpServerDefinition): string[] {
  const names = (map: Readonly<Record<string, string>>) => Object.keys(map).sort().join(', ') || '(none)';
  return definition.transport === 'stdio'
    ? [`command: ${definition.command}`, `args: ${JSON.stringify(definition.args)}`, `env names: ${names(definition.env)}`]
    : [`${definition.transport}: ${definition.url}`, `header names: ${names(definition.headers)}`];
}

function serverCandidate(sources: SetupSources, entry: McpServerEntry & { definition: McpServerDefinition }): ApprovalCandidate {
  const hash = serverApprovalHash(entry.definition);
  const item = approvalItem(entry.name);
  return {
    kind: 'mcp',
    name: entry.name,
    file: entry.file,
    item,
    hash,
    approved: sources.approvals.isApproved({ workspace: sources.workspaceDir, item }, hash),
    details: serverDetails(entry.definition),
  };
}

function settingsCandidate(sources: SetupSources, source: SettingsSource): ApprovalCandidate {
  const item = settingsItem(sources.workspaceDir, source.file);
  const hash = settingsHash(source);
  const only = { ...sources, user: [], project: [source] };
  const hooks = readHooks({ ...only, trusted: true }).hooks.map((h) => `hook ${h.event}${h.matcher ? ` (${h.matcher})` : ''}: ${h.command}`);
  const allows = PermissionRules.fromSources(only)
    .rules.filter((r) => r.kind === 'allow')
    .map((r) => `allow ${r.rule.text}`);
  return {
    kind: 'settings',
    name: path.relative(sources.workspaceDir, source.file).split(path.sep).join('/'),
    file: source.file,
    item,
    hash,
    approved: sources.approvals.isApproved({ workspace: sources.workspaceDir, item }, hash),
    details: [...hooks, ...allows],
  };
}
