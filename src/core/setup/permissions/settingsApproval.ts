import path from 'node:path';
import { definitionHash } from '../projectApprovals';
import type { SettingsSource } from '../settingsFiles';
import type { SetupSources } from '../sources';

// A project settings file's hooks and allow rules take effect only when the user approved that
// file's hooks and permissions as they are now (item `settings:<file relative to the workspace>`),
// and only in a trusted workspace. A changed file asks again.

/** The approval item of a project settings file. */
export function settingsItem(workspaceDir: string, file: string): string {
  return `settings:${path.relative(workspaceDir, file).split(path.sep).join('/')}`;
}

/** The hash a settings file is approved by: its hooks and permissions, nothing else. */
export function settingsHash(source: SettingsSource): string {
  return definitionHash({ hooks: source.settings.hooks ?? null, permissions: source.settings.permissions ?? null });
}

/** True for the user's own sources; for a project's, true only when trusted and approved as it is now. */
export function sourceApproved(sources: SetupSources, source: SettingsSource): boolean {
  if (source.origin !== 'project') return true;
  if (!sources.trusted) return false;
  return sources.approvals.isApproved({ workspace: sources.workspaceDir, item: settingsItem(sources.workspaceDir, source.file) }, settingsHash(source));
}

/** Approves every project settings file with hooks or permissions as it is now; returns the files approved. */
export async function approveProjectSettings(sources: SetupSources): Promise<SettingsSource[]> {
  const approved: SettingsSource[] = [];
  for (const source of sources.project) {
    if (source.error || (source.settings.hooks === undefined && source.settings.permissions === undefined)) continue;
    await sources.approvals.approve({ workspace: sources.workspaceDir, item: settingsItem(sources.workspaceDir, source.file) }, settingsHash(source));
    approved.push(source);
  }
  return approved;
}
