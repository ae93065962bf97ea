import { definitionHash } from '../projectApprovals';
import type { SetupSources } from '../sources';
import { approvalItem, approvedShape, type McpServerDefinition, type McpServerEntry } from './definitions';

/** The hash a project server is approved by: its approved shape (how it runs, names of its variables and headers). */
export function serverApprovalHash(definition: McpServerDefinition): string {
  return definitionHash(approvedShape(definition));
}

/** True when the user approved this project server's definition as it is now, for this workspace. */
export function serverApproved(sources: Pick<SetupSources, 'approvals' | 'workspaceDir'>, entry: McpServerEntry): boolean {
  if (!entry.definition) return false;
  return sources.approvals.isApproved({ workspace: sources.workspaceDir, item: approvalItem(entry.name) }, serverApprovalHash(entry.definition));
}
