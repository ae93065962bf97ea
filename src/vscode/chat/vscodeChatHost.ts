import * as vscode from 'vscode';
import type { HostToWebview } from '../../protocol/messages';
import { lookUpApiKey } from '../apiKeys';
import { chooseModel } from '../lm/chooseModel';
import { vscodeAwareStream } from '../lm/vscodeLmStream';
import { readApprovalPolicy, readCompactionSettings, readPromptHook, readSuggestionSetting } from '../settings';
import type { ChatHost } from './chatHost';
import { changeVscodeRule, vscodeSetupSources } from '../setupSettings';

/** The workspace-state key of the session the Chat view shows. */
const SHOWN_KEY = 'braid.chat.shownSession';

/**
 * The current session's host in VS Code: the window's folders and trust, the model the settings
 * (or VS Code's models) give, API keys from SecretStorage, settings read at each session's opening,
 * and the shown session kept in the workspace state. `pages` says how the Chat pages are reached.
 */
export function vscodeChatHost(
  secrets: vscode.SecretStorage,
  memory: vscode.Memento,
  pages: { post(message: HostToWebview): void; resync(): void; reveal(): void },
): ChatHost {
  return {
    workspaceDirs: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    isTrusted: () => vscode.workspace.isTrusted,
    chooseModel,
    streamFn: vscodeAwareStream,
    apiKey: (provider) => lookUpApiKey(secrets, provider),
    sessionSettings: () => {
      const promptHook = readPromptHook();
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      return {
        approvalPolicy: readApprovalPolicy(),
        compaction: readCompactionSettings(),
        ...(promptHook ? { promptHook } : {}),
        ...(folder ? { setup: vscodeSetupSources(folder), alwaysAllow: (rule: string) => changeVscodeRule('allow', rule, 'add') } : {}),
      };
    },
    suggestionSetting: readSuggestionSetting,
    shown: {
      get: () => memory.get<string>(SHOWN_KEY),
      set: (id) => void memory.update(SHOWN_KEY, id),
    },
    post: (message) => pages.post(message),
    resync: () => pages.resync(),
    reveal: () => pages.reveal(),
  };
}
