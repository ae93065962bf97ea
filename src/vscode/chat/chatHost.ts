// What the chat's current session needs of the editor it runs in, and the options its sessions
// open with. No vscode import (test/unit/layering.test.ts checks it); vscodeChatHost.ts maps it.
import os from 'node:os';
import type { SetupSources } from '../../core/setup/sources';
import type { McpHub } from '../../core/setup/mcp/hub';
import type { AgentTool, StreamFn } from '@mariozechner/pi-agent-core';
import { userConfigDir } from '../../core/setup/settingsFiles';
import type { Logger } from '../../core/logger';
import type { CompactionSettings } from '../../core/session/compaction';
import type { RepeatLimits } from '../../core/session/repeatedCalls';
import type { ModelChoice, SessionOptions } from '../../core/session/session';
import { systemPrompt } from '../../core/session/systemPrompt';
import type { SessionStore } from '../../core/store/sessionStore';
import type { SuggestionSetting } from '../../core/session/suggestion';
import type { GoalBudget } from '../../core/session/goal';
import type { ApprovalPolicy, ApprovalUi } from '../../core/tools/approvals';
import type { ToolContext } from '../../core/tools/context';
import type { HostToWebview } from '../../protocol/messages';

/** What the current session needs of the editor it runs in (VS Code: vscodeChatHost.ts). */
export interface ChatHost {
  /** The paths of the window's workspace folders, the main one first; none when no folder is open. */
  workspaceDirs(): readonly string[];
  /** Whether the user trusts the workspace (untrusted: no writes, no commands, no git). */
  isTrusted(): boolean;
  /** The model for the next turn; throws when the settings name none that works. */
  chooseModel(): Promise<ModelChoice>;
  /** How the kernel streams (VS Code: its own models through vscode.lm, the rest through pi-ai). */
  readonly streamFn?: StreamFn;
  /** A provider's API key (the editor's secret store, BRAID_API_KEY, the provider's variable). */
  apiKey(provider: string): Promise<string | undefined>;
  /** Approvals, compaction and the prompt hook, as the settings say now. */
  sessionSettings(): {
    approvalPolicy: ApprovalPolicy;
    compaction: CompactionSettings;
    /** When a repeated tool call gets a reminder and when it ends the turn. */
    repeatLimits?: Partial<RepeatLimits>;
    promptHook?: string;
    /** Writes an "Always allow" rule into the user's own settings. */
    alwaysAllow?: (rule: string) => Promise<void>;
  };
  /** `braid.holdPromptUntilAnswer` as it is now (read at each turn's start); absent: prompts are written at once. */
  holdPromptUntilAnswer?(): boolean;
  /** The workspace's setup as read last (read again when a setting, a setup file or trust changes); throws without a folder. */
  setupSources(): SetupSources;
  /** Hears of the setup read again; absent: the host never reads it again. */
  onDidChangeSetup?(listener: (sources: SetupSources) => void): { dispose(): void };
  /** Tools the editor offers besides Braid's (VS Code's tools the user chose), asked for at each turn's start. */
  extraTools?(ctx: ToolContext): readonly AgentTool[];
  /** The window's MCP servers as the setup is now (one hub a window; absent: none). */
  mcp?(): McpHub;
  /** `braid.goal.maxTurns` and `braid.goal.maxTokens`: what a /goal run may spend; absent: the defaults. */
  goalBudget?(): GoalBudget;
  /** `braid.suggestions`, the user's own; absent: no suggestions. */
  suggestionSetting?(): SuggestionSetting;
  /** The session this window showed last, kept across a reload of the window. */
  readonly shown: { get(): string | undefined; set(id: string | undefined): void };
  /** Posts to every Chat page. */
  post(message: HostToWebview): void;
  /** Sends every page a fresh snapshot. */
  resync(): void;
  /** Brings the chat forward, so an approval asked is seen. */
  reveal(): void;
}

/** Said when the store failed to open (the log has why) and a session is needed. */
export const NO_STORE = 'The session store could not be opened; see "Braid: Show Log".';

/**
 * The options a chat session opens with: the host's folders, model, keys and settings as they are
 * now. The model is looked up first, so a configuration problem is reported before a session is created.
 */
export async function sessionOptions(store: SessionStore, host: ChatHost, approvals: ApprovalUi, logger: Logger): Promise<SessionOptions> {
  await host.chooseModel();
  const workspaceDirs = host.workspaceDirs();
  if (workspaceDirs.length === 0) throw new Error('Open a folder first: Braid works on the files of a workspace folder.');
  const { approvalPolicy, compaction, repeatLimits, promptHook, alwaysAllow } = host.sessionSettings();
  return {
    store,
    workspaceDirs,
    model: () => host.chooseModel(),
    ...(host.streamFn ? { streamFn: host.streamFn } : {}),
    apiKey: (provider) => host.apiKey(provider),
    systemPrompt: systemPrompt(workspaceDirs[0]!),
    approvals,
    approvalPolicy,
    compaction,
    ...(repeatLimits ? { repeatLimits } : {}),
    ...(host.holdPromptUntilAnswer ? { holdPromptUntilAnswer: () => host.holdPromptUntilAnswer!() } : {}),
    trusted: () => host.isTrusted(),
    logger,
    // The old prompt hook (braid.hooks.userPromptSubmit) is kept out of the setup's hooks: it runs once, as this.
    skills: { userConfigDir: userConfigDir(), home: os.homedir() },
    ...(promptHook ? { promptHook } : {}),
    setup: () => host.setupSources(),
    ...(alwaysAllow ? { alwaysAllow } : {}),
    ...(host.extraTools ? { extraTools: (ctx: ToolContext) => host.extraTools!(ctx) } : {}),
    ...(host.mcp ? { mcp: () => host.mcp!() } : {}),
  };
}
