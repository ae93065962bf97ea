import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import type { SessionStore } from '../../core/store/sessionStore';
import { registerCommands } from '../commands';
import { addSelectionCommand, compactSessionCommand, promptHistoryCommand, sideQuestionCommand } from '../commands/chatCommands';
import { showSessionMemoryCommand, updateSessionMemoryCommand } from '../commands/memoryCommands';
import { SessionStatusBar, type StatusNotes } from '../statusBar';
import { ChatEditor } from './chatEditor';
import { ChatHub } from './chatHub';
import { chatBesideEditorCommand, registerStartPointer } from './chatPlace';
import { ChatViewProvider } from './chatViewProvider';
import { MemoryDocuments } from './memoryDocument';

/**
 * The window's one chat, shown in the side bar's Chat view and, on demand, in an editor tab; the
 * status bar item that names its session and model (its tooltip adds `statusNotes`); the commands
 * that work on it alone.
 */
export function registerChat(context: vscode.ExtensionContext, deps: { store: SessionStore | undefined; logger: Logger; statusNotes?: StatusNotes }): ChatHub {
  const chat = new ChatHub(context.extensionUri, deps.store, context.secrets, context.workspaceState, deps.logger);
  const chatEditor = new ChatEditor(chat);
  const startPointer = registerStartPointer(context);
  context.subscriptions.push(
    chat,
    chatEditor,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, new ChatViewProvider(chat, () => startPointer.chatOpened())),
  );

  const statusBar = new SessionStatusBar(deps.statusNotes);
  // The model named is the header's, so the two never disagree.
  const showStatus = () => void chat.modelInfo().then((model) => statusBar.update(chat.current.status(), model));
  context.subscriptions.push(statusBar, chat.current.onDidChange(showStatus), chat.onDidChangeModel(showStatus));

  const memoryDocuments = new MemoryDocuments(chat.current);
  context.subscriptions.push(memoryDocuments);
  registerCommands(context, deps.logger, [
    sideQuestionCommand(chat),
    addSelectionCommand(chat),
    compactSessionCommand(chat),
    showSessionMemoryCommand(memoryDocuments),
    updateSessionMemoryCommand(chat, memoryDocuments),
    promptHistoryCommand(chat),
    { id: 'braid.openChatInEditor', run: () => chatEditor.open() },
    chatBesideEditorCommand(),
  ]);
  return chat;
}
