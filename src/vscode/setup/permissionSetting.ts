import * as vscode from 'vscode';
import { readSetupSources, type SetupSources } from '../../core/setup/sources';
import { readVscodeSetup } from '../settings';

/** Every setup source of the window's main folder, as they are now. */
export function vscodeSetupSources(workspaceDir: string): SetupSources {
  return readSetupSources({ workspaceDir, trusted: vscode.workspace.isTrusted, vscode: readVscodeSetup() });
}

/** Adds (or removes) a rule in the user's `braid.permissions.<kind>` (VS Code writes the user settings file). */
export async function changeVscodeRule(kind: 'allow' | 'ask' | 'deny', rule: string, change: 'add' | 'remove'): Promise<void> {
  const config = vscode.workspace.getConfiguration('braid');
  const current = config.inspect<Record<string, unknown>>('permissions')?.globalValue ?? {};
  const list = Array.isArray(current[kind]) ? (current[kind] as unknown[]).filter((r): r is string => typeof r === 'string') : [];
  const next = change === 'add' ? (list.includes(rule) ? list : [...list, rule]) : list.filter((r) => r !== rule);
  await config.update('permissions', { ...current, [kind]: next }, vscode.ConfigurationTarget.Global);
}
