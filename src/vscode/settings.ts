import * as vscode from 'vscode';
import { DEFAULT_GOAL_BUDGET, type GoalBudget } from '../core/session/goal';
import { DEFAULT_COMPACTION, type CompactionSettings } from '../core/session/compaction';
import { DEFAULT_REPEAT_LIMITS, type RepeatLimits } from '../core/session/repeatedCalls';
import type { ModelSettings } from '../core/model/modelSettings';
import type { ApprovalPolicy } from '../core/tools/approvals';
import { SUGGESTION_SETTINGS, type SuggestionSetting } from '../core/session/suggestion';
import type { SetupSettings } from '../core/setup/settingsFiles';
import { SETUP_SETTINGS, vscodeSetupSettings } from './setup/setupSettings';

/**
 * A setting's value from the user's own settings, else its default. Workspace and folder values
 * are never read: these settings choose where prompts and the API key go, what runs without
 * asking, what command runs before each prompt, and the limits of the model they choose. The package.json scope (`application`) and
 * `restrictedConfigurations` already keep a workspace's value out; this read does not rely on it.
 */
function userSetting<T>(section: string, key: string, fallback: T): T {
  const inspected = vscode.workspace.getConfiguration(section).inspect<T>(key);
  return inspected?.globalValue ?? inspected?.defaultValue ?? fallback;
}

/** Reads the `braid.*` model settings (the user's own). */
export function readModelSettings(): ModelSettings {
  return {
    provider: userSetting('braid', 'provider', ''),
    model: userSetting('braid', 'model', ''),
    baseUrl: userSetting('braid', 'baseUrl', ''),
    demo: userSetting('braid', 'demoModel', false),
    contextWindow: userSetting<number>('braid', 'contextWindow', 0),
    maxOutputTokens: userSetting<number>('braid', 'maxOutputTokens', 0),
    imageInput: userSetting('braid', 'imageInput', false),
  };
}

let modelWrites: Promise<unknown> = Promise.resolve();

/**
 * Runs `write`, which saves several model settings one by one. Until it ends,
 * `settledModelSettings` waits: a reader between two writes would see half of a choice (the new
 * provider with the old demo flag, say), however slow the writes are.
 */
export function writingModelSettings<T>(write: () => Promise<T>): Promise<T> {
  const done = modelWrites.then(write, write);
  modelWrites = done.catch(() => undefined);
  return done;
}

/** The model settings once no pick is half-written. */
export async function settledModelSettings(): Promise<ModelSettings> {
  await modelWrites;
  return readModelSettings();
}

/** True when a change touches the model settings. */
export function affectsModelSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return ['provider', 'model', 'baseUrl', 'demoModel', 'contextWindow', 'maxOutputTokens', 'imageInput'].some((key) =>
    event.affectsConfiguration(`braid.${key}`),
  );
}

/** Which tool actions run without asking (`braid.approval.*`, the user's own); asking is the default. */
export function readApprovalPolicy(): ApprovalPolicy {
  return {
    writes: userSetting<string>('braid.approval', 'writes', 'ask') === 'allow' ? 'allow' : 'ask',
    shell: userSetting<string>('braid.approval', 'shell', 'ask') === 'allow' ? 'allow' : 'ask',
  };
}

/** The UserPromptSubmit hook command from the user's own settings, if any. */
export function readPromptHook(): string | undefined {
  const command = userSetting<unknown>('braid.hooks', 'userPromptSubmit', '');
  return typeof command === 'string' && command.trim() ? command : undefined;
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

/** `braid.repeatedCalls.*` (the user's own: a workspace cannot let a stuck model run on). */
export function readRepeatLimits(): Partial<RepeatLimits> {
  return {
    remindAt: userSetting<number>('braid.repeatedCalls', 'remindAt', DEFAULT_REPEAT_LIMITS.remindAt),
    stopAt: userSetting<number>('braid.repeatedCalls', 'stopAt', DEFAULT_REPEAT_LIMITS.stopAt),
  };
}

/** Where Fork into Worktree puts worktrees (the user's own setting; undefined: beside the repository). */
export function readWorktreeRoot(): string | undefined {
  return userSetting<string>('braid.worktrees', 'root', '').trim() || undefined;
}

/** `braid.storage.budgetMB` (application scope, the user's own): over it, the window says so at its start; 0 is no budget. */
export function readStorageBudgetMB(): number {
  const budget = userSetting<number>('braid.storage', 'budgetMB', 0);
  return Number.isFinite(budget) && budget > 0 ? budget : 0;
}

/** `braid.suggestions`, the user's own: a workspace cannot switch on calls to a paid model. Anything else: `auto`. */
export function readSuggestionSetting(): SuggestionSetting {
  const value = userSetting<unknown>('braid', 'suggestions', 'auto');
  return SUGGESTION_SETTINGS.find((s) => s === value) ?? 'auto';
}

/** `braid.goal.*` (the user's own: a workspace cannot let a goal run spend more). A value that is no whole number: the default. */
export function readGoalBudget(): GoalBudget {
  const count = (key: keyof GoalBudget, least: number): number => {
    const value = userSetting<number>('braid.goal', key, DEFAULT_GOAL_BUDGET[key]);
    return Number.isInteger(value) && value >= least ? value : DEFAULT_GOAL_BUDGET[key];
  };
  return { maxTurns: count('maxTurns', 1), maxTokens: count('maxTokens', 0) };
}

/** `braid.mcpServers`, `braid.hooks` and `braid.permissions` from the user's own settings: a workspace's values are never read. */
export function readVscodeSetup(): SetupSettings {
  return vscodeSetupSettings({
    mcpServers: userSetting<unknown>('braid', 'mcpServers', undefined),
    hooks: userSetting<unknown>('braid', 'hooks', undefined),
    permissions: userSetting<unknown>('braid', 'permissions', undefined),
  });
}

/** True when a change touches the setup's settings. */
export function affectsSetupSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return SETUP_SETTINGS.some((key) => event.affectsConfiguration(key));
}

/** `braid.blame.codeLens`: a CodeLens above the lines each Braid turn wrote (the user's own setting). */
export function readBlameCodeLens(): boolean {
  return userSetting('braid', 'blame.codeLens', false);
}
