import * as vscode from 'vscode';
import type { HostToWebview } from '../../protocol/messages';
import { lookUpApiKey } from '../apiKeys';
import { chooseModel } from '../lm/chooseModel';
import { vscodeAwareStream } from '../lm/vscodeLmStream';
import { vscodeLmTools } from '../lm/vscodeLmTools';
import type { SetupWatcher } from '../setup/setupWatcher';
import type { WindowMcp } from '../setup/windowMcp';
import { readApprovalPolicy, readCompactionSettings, readPromptHook, readRepeatLimits, readSuggestionSetting, readGoalBudget } from '../settings';
import type { ChatHost } from './chatHost';
import { changeVscodeRule } from '../setup/permissionSetting';

/** The workspace-state key of the session the Chat view shows. */
const SHOWN_KEY = 'braid.chat.shownSession';

/**
 * The current session's host in VS Code: the window's folders and trust, the model the settings
 * (or VS Code's models) give, API keys from SecretStorage, settings read at each session's opening,
 * the setup `setup` keeps read, the VS Code tools the user chose, and the shown session kept in the workspace state. `pages` says how the Chat pages are reached.
 */
export function vscodeChatHost(
  secrets: vscode.SecretStorage,
  memory: vscode.Memento,
  pages: { post(message: HostToWebview): void; resync(): void; reveal(): void },
  setup: SetupWatcher,
  mcp: WindowMcp,
): ChatHost {
  return {
    workspaceDirs: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    isTrusted: () => vscode.workspace.isTrusted,
    chooseModel,
    streamFn: vscodeAwareStream,
    apiKey: (provider) => lookUpApiKey(secrets, provider),
    sessionSettings: () => {
      const promptHook = readPromptHook();
      return {
        approvalPolicy: readApprovalPolicy(),
        compaction: readCompactionSettings(),
        repeatLimits: readRepeatLimits(),
        ...(promptHook ? { promptHook } : {}),
        alwaysAllow: (rule: string) => changeVscodeRule('allow', rule, 'add'),
      };
    },
    holdPromptUntilAnswer: () => vscode.workspace.getConfiguration('braid').get<boolean>('holdPromptUntilAnswer', false) === true,
    setupSources: () => setup.current(),
    onDidChangeSetup: (listener) => setup.onDidChange(listener),
    extraTools: vscodeLmTools,
    mcp: () => mcp.current(),
    suggestionSetting: readSuggestionSetting,
    goalBudget: readGoalBudget,
    shown: {
      get: () => memory.get<string>(SHOWN_KEY),
      set: (id) => void memory.update(SHOWN_KEY, id),
    },
    post: (message) => pages.post(message),
    resync: () => pages.resync(),
    reveal: () => pages.reveal(),
  };
}
