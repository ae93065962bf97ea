import * as vscode from 'vscode';
import { DEFAULT_COMPACTION, type CompactionSettings } from '../core/session/compaction';
import type { ModelSettings } from '../core/model/modelSettings';
import type { ApprovalPolicy } from '../core/tools/approvals';

/** Reads the `braid.*` model settings. */
export function readModelSettings(): ModelSettings {
  const config = vscode.workspace.getConfiguration('braid');
  return {
    provider: config.get<string>('provider', ''),
    model: config.get<string>('model', ''),
    baseUrl: config.get<string>('baseUrl', ''),
    demo: config.get<boolean>('demoModel', false),
  };
}

/** True when a change touches the model settings. */
export function affectsModelSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return ['provider', 'model', 'baseUrl', 'demoModel'].some((key) => event.affectsConfiguration(`braid.${key}`));
}

/** Which tool actions run without asking (`braid.approval.*`); asking is the default. */
export function readApprovalPolicy(): ApprovalPolicy {
  const config = vscode.workspace.getConfiguration('braid.approval');
  return {
    writes: config.get<string>('writes') === 'allow' ? 'allow' : 'ask',
    shell: config.get<string>('shell') === 'allow' ? 'allow' : 'ask',
  };
}

/** `braid.compaction.*`, clamped to sane ranges. */
export function readCompactionSettings(): CompactionSettings {
  const config = vscode.workspace.getConfiguration('braid.compaction');
  const threshold = config.get<number>('threshold', DEFAULT_COMPACTION.threshold);
  const keepTokens = config.get<number>('keepTokens', DEFAULT_COMPACTION.keepTokens);
  return {
    threshold: Number.isFinite(threshold) ? Math.min(0.98, Math.max(0.1, threshold)) : DEFAULT_COMPACTION.threshold,
    keepTokens: Number.isFinite(keepTokens) ? Math.max(0, Math.round(keepTokens)) : DEFAULT_COMPACTION.keepTokens,
  };
}
