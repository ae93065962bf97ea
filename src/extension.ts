import * as vscode from 'vscode';
import { errorMessage } from './core/errors';
import type { Logger } from './core/logger';
import { SessionStore } from './core/store/sessionStore';
import { workspaceKey } from './core/workspace/workspaceKey';
import { ChatEditor } from './vscode/chat/chatEditor';
import { ChatHub } from './vscode/chat/chatHub';
import { chatBesideEditorCommand, registerStartPointer } from './vscode/chat/chatPlace';
import { ChatViewProvider } from './vscode/chat/chatViewProvider';
import { registerCommands } from './vscode/commands';
import { reported } from './vscode/reported';
import { commandContext } from './vscode/commands/commandContext';
import { refreshSessionsCommand } from './vscode/commands/refreshSessions';
import {
  FORK_FAILURE,
  forkAtMessage,
  forkAtTurnCommand,
  forkAgentCommand,
  forkCommand,
  REWIND_FAILURE,
  rewindCommand,
  rewindToMessage,
  undoRewindCommand,
} from './vscode/commands/forkRewindCommands';
import { importCommands } from './vscode/commands/importSessions';
import { lifecycleCommands } from './vscode/commands/lifecycleCommands';
import { offerRelink } from './vscode/commands/relinkOffer';
import { newSessionCommand, openSessionCommand } from './vscode/commands/sessionCommands';
import {
  finishWorktreeCommand,
  forkIntoWorktreeAtMessage,
  forkIntoWorktreeCommand,
  GIT_CONTENT_SCHEME,
  gitContentProvider,
  openWorktreeFolderCommand,
  recreateWorktreeCommand,
  worktreeDiffCommand,
  WORKTREE_FORK_FAILURE,
} from './vscode/commands/worktreeCommands';
import { selectModelCommand } from './vscode/commands/selectModel';
import { showUsageCommand } from './vscode/commands/showUsage';
import { chooseVscodeToolsCommand } from './vscode/commands/chooseVscodeTools';
import { showSetupCommand } from './vscode/commands/showSetup';
import { SetupDocument } from './vscode/setup/setupView';
import { ApprovalNotice } from './vscode/setup/approvalNotice';
import { approveProjectSetupCommand } from './vscode/commands/approveProjectSetup';
import { storageCommands } from './vscode/commands/storageCommands';
import { checkStorageBudget, StorageDocuments } from './vscode/storage/storageView';
import { SessionStatusBar } from './vscode/statusBar';
import { setApiKeyCommand } from './vscode/commands/setApiKey';
import { showLogCommand } from './vscode/commands/showLog';
import { showPermissionRulesCommand } from './vscode/commands/permissionRules';
import { MemoryDocuments } from './vscode/chat/memoryDocument';
import { showSessionMemoryCommand, updateSessionMemoryCommand } from './vscode/commands/memoryCommands';
import { addSelectionCommand, compactSessionCommand, editLastPromptCommand, promptHistoryCommand, sideQuestionCommand } from './vscode/commands/chatCommands';
import { restoreTreeMode, workspaceToggleCommands } from './vscode/commands/workspaceToggle';
import { channelLogger } from './vscode/log';
import { indexSource, NO_SESSIONS, SessionsTreeProvider } from './vscode/sessionsTree/sessionsTreeProvider';
import { UsagePanel } from './vscode/usage/usagePanel';

/** Wires Braid's pieces together; everything created here is disposed with the extension. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const channel = vscode.window.createOutputChannel('Braid', { log: true });
  context.subscriptions.push(channel);
  const logger = channelLogger(channel);

  const workspaceDir = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const store = await openStore(context, logger, workspaceDir);
  const sessions = new SessionsTreeProvider(store ? indexSource(store) : NO_SESSIONS, workspaceDir);
  const treeView = vscode.window.createTreeView('braid.sessions', { treeDataProvider: sessions, showCollapseAll: true });
  context.subscriptions.push(sessions, treeView, sessions.followClock(treeView));
  await restoreTreeMode(sessions, context.workspaceState);
  /**
   * Shows a session's row (a new fork under its source), once the index has it. VS Code takes in
   * a tree's changes a moment after they are announced (it debounces them), so a reveal right
   * after a fork can meet the listing from before it: it is tried again a few times.
   */
  const revealSession = (id: string, attempt = 1): void => {
    const node = sessions.node(id);
    const failed = (why: string) => {
      if (attempt < 4) setTimeout(() => revealSession(id, attempt + 1), 250);
      else logger.warn(`could not show session ${id} in the Sessions tree: ${why}`);
    };
    if (!node) failed('it is not listed there');
    else void treeView.reveal(node, { select: true, focus: false, expand: true }).then(undefined, (err: unknown) => failed(errorMessage(err)));
  };

  // One chat per window, shown in the side bar's Chat view and, on demand, in an editor tab.
  const chat = new ChatHub(context.extensionUri, store, context.secrets, context.workspaceState, logger);
  const chatEditor = new ChatEditor(chat);
  const startPointer = registerStartPointer(context);
  context.subscriptions.push(
    chat,
    chatEditor,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, new ChatViewProvider(chat, () => startPointer.chatOpened())),
  );

  const statusBar = new SessionStatusBar();
  // The model named is the header's, so the two never disagree.
  const showStatus = () => void chat.modelInfo().then((model) => statusBar.update(chat.current.status(), model));
  context.subscriptions.push(statusBar, chat.current.onDidChange(showStatus), chat.onDidChangeModel(showStatus));

  const ctx = commandContext({ chat, logger, store, workspaceDir, revealSession });
  chat.setSessionRevealer(revealSession);
  chat.setMessageActionHandler((action, sessionId, messageId) =>
    action === 'fork'
      ? reported(logger, 'fork at a message', () => forkAtMessage(ctx, sessionId, messageId), FORK_FAILURE)
      : action === 'forkWorktree'
        ? reported(logger, 'fork into a worktree at a message', () => forkIntoWorktreeAtMessage(ctx, sessionId, messageId), WORKTREE_FORK_FAILURE)
        : // Edit & resend is a rewind that refills the input.
          reported(logger, `${action} at a message`, () => rewindToMessage(ctx, sessionId, messageId), REWIND_FAILURE),
  );

  const setupDocument = new SetupDocument(chat.setup);
  context.subscriptions.push(setupDocument, new ApprovalNotice(chat.setup, logger));
  const memoryDocuments = new MemoryDocuments(chat.current);
  context.subscriptions.push(memoryDocuments);
  const storageDocuments = store ? new StorageDocuments(store) : undefined;
  if (storageDocuments) context.subscriptions.push(storageDocuments);
  registerCommands(context, logger, [
    showLogCommand(channel),
    showPermissionRulesCommand(chat),
    refreshSessionsCommand(ctx, sessions),
    ...workspaceToggleCommands(sessions, context.workspaceState),
    newSessionCommand(chat),
    openSessionCommand(ctx),
    setApiKeyCommand(context.secrets),
    forkCommand(ctx),
    forkAtTurnCommand(ctx),
    forkAgentCommand(ctx),
    forkIntoWorktreeCommand(ctx),
    finishWorktreeCommand(ctx),
    worktreeDiffCommand(ctx),
    openWorktreeFolderCommand(ctx),
    recreateWorktreeCommand(ctx),
    rewindCommand(ctx),
    undoRewindCommand(ctx),
    editLastPromptCommand(ctx),
    sideQuestionCommand(chat),
    addSelectionCommand(chat),
    compactSessionCommand(chat),
    showSessionMemoryCommand(memoryDocuments),
    updateSessionMemoryCommand(chat, memoryDocuments),
    promptHistoryCommand(chat),
    ...lifecycleCommands(ctx),
    ...importCommands(ctx),
    showUsageCommand(ctx, (s) => {
      const usage = new UsagePanel(context.extensionUri, s, workspaceDir, logger);
      context.subscriptions.push(usage);
      return usage;
    }),
    ...storageCommands(ctx, storageDocuments),
    selectModelCommand(context.secrets),
    chooseVscodeToolsCommand(),
    showSetupCommand(setupDocument),
    approveProjectSetupCommand(chat.setup),
    { id: 'braid.openChatInEditor', run: () => chatEditor.open() },
    chatBesideEditorCommand(),
  ]);
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(GIT_CONTENT_SCHEME, gitContentProvider));
  logger.info(`Braid ${context.extension.packageJSON.version} activated (storage: ${context.globalStorageUri.fsPath})`);

  if (store && ctx.workspaceKey) {
    // The first page came from the index; bring this workspace's rows up to date in the background.
    void store.index.catchUpWithFolders(ctx.workspaceKey).catch((err: unknown) => logger.warn(`reconciling sessions failed: ${errorMessage(err)}`));
    // Sessions a crash left running (their writer's lease gone stale) become interrupted.
    void store.recoverInterrupted(workspaceDir!).catch((err: unknown) => logger.warn(`recovering interrupted sessions failed: ${errorMessage(err)}`));
    store.purgeTrash(); // each entry it purges is named in the log
    // A folder that was moved or renamed: its sessions are offered back.
    if (store.index.count({ workspaceKey: ctx.workspaceKey }) === 0) void offerRelink(store, workspaceDir!, logger);
  }
  if (store) {
    // Once per window start, off the activation path: the measure walks the whole data folder.
    const budgetCheck = setTimeout(() => checkStorageBudget(store, logger), 3000);
    context.subscriptions.push({ dispose: () => clearTimeout(budgetCheck) });
  }
}

/** Opens the session store in globalStorage; without it Braid still runs, with an empty tree and a logged reason. */
async function openStore(context: vscode.ExtensionContext, logger: Logger, workspaceDir: string | undefined): Promise<SessionStore | undefined> {
  try {
    const store = await SessionStore.open({
      root: context.globalStorageUri.fsPath,
      wasmPath: vscode.Uri.joinPath(context.extensionUri, 'dist', 'sql-wasm.wasm').fsPath,
      logger,
      workspaceKey: workspaceDir ? workspaceKey(workspaceDir) : undefined, // its index loads now, the others' when a view asks
      watch: true,
      verifyAfterMs: 5_000, // the whole-index checks, after activation rather than in it
    });
    context.subscriptions.push({ dispose: () => void store.close() });
    return store;
  } catch (err) {
    logger.error(`cannot open the session store in ${context.globalStorageUri.fsPath}: ${errorMessage(err)}`);
    void vscode.window.showErrorMessage('Braid could not open its session store; see "Braid: Show Log" for the reason.');
    return undefined;
  }
}

export function deactivate(): void {}
