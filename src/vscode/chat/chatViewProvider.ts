import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { userMessageId } from '../../core/ids';
import type { Logger } from '../../core/logger';
import type { SessionStore } from '../../core/store/sessionStore';
import { PROTOCOL_VERSION, type HostToWebview, type ModelInfo, type PageCommand, type SlashCommand, type WebviewToHost } from '../../protocol/messages';
import { parseWebviewMessage } from '../../protocol/validate';
import { Disposable, disposeAll } from '../disposable';
import { chooseModel } from '../lm/chooseModel';
import { affectsModelSettings, readModelSettings } from '../settings';
import { chatHtml } from './chatHtml';
import { ChatSessions } from './chatSessions';

/** The VS Code command each slash command (and each of the page's controls) runs. */
const COMMANDS: Record<Exclude<SlashCommand, 'btw'> | PageCommand, string> = {
  new: 'braid.newSession',
  sessions: 'braid.openSession',
  fork: 'braid.forkSession',
  rewind: 'braid.rewind',
  edit: 'braid.editLastPrompt',
  compact: 'braid.compactSession',
  history: 'braid.promptHistory',
  model: 'braid.selectModel',
  usage: 'braid.showUsage',
  trust: 'workbench.trust.manage',
  undoRewind: 'braid.undoRewind',
};

/**
 * The Chat webview view. Talks to the page only through the typed protocol: it waits for the
 * page's `ready` before posting anything, validates every incoming message, and never keeps the
 * page alive while hidden: a page that comes back says `ready` and gets a snapshot (the log's
 * newest page plus the live part of a running turn), then frames from the ring (DESIGN.md 7).
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = 'braid.chat';
  private view: vscode.WebviewView | undefined;
  private ready = false;
  readonly sessions: ChatSessions;
  private actionHandler: ((action: 'rewind' | 'fork' | 'edit', sessionId: string, messageId: string) => Promise<void>) | undefined;

  private restored = false;
  private revealer: ((sessionId: string) => void) | undefined;
  /** The model the page shows; looked up once and again only when settings or VS Code's models change. */
  private model: Promise<ModelInfo> | undefined;

  constructor(private readonly extensionUri: vscode.Uri, store: SessionStore | undefined, secrets: vscode.SecretStorage, memory: vscode.Memento, private readonly logger: Logger) {
    super();
    this.sessions = this._register(new ChatSessions(store, secrets, logger, (m) => this.post(m), memory, () => void this.snapshot(), () => {
      if (!this.view?.visible) void this.reveal();
    }));
    const modelChanged = () => {
      this.model = undefined;
      void this.modelInfo().then((model) => this.post({ type: 'modelChanged', model }));
    };
    this._register(vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsModelSettings(event)) modelChanged();
    }));
    // Models VS Code offers come and go (an extension activates, Copilot signs in).
    this._register(vscode.lm.onDidChangeChatModels(modelChanged));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => void this.snapshot()));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    view.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    view.webview.html = chatHtml(view.webview, this.extensionUri, { protocol: PROTOCOL_VERSION }, vscode.Uri.joinPath);
    // Per-view listeners: a view that is moved or re-created gets resolved again.
    const listeners: vscode.Disposable[] = [view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw))];
    listeners.push(view.onDidDispose(() => {
      disposeAll(listeners);
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
      }
    }));
  }

  /** Who handles the page's actions on user messages (rewind, fork, edit & resend). */
  setMessageActionHandler(handler: (action: 'rewind' | 'fork' | 'edit', sessionId: string, messageId: string) => Promise<void>): void {
    this.actionHandler = handler;
  }

  /** Who shows a session's row in the Sessions tree (a side question kept as a fork). */
  setSessionRevealer(reveal: (sessionId: string) => void): void {
    this.revealer = reveal;
  }

  /** Puts text in the chat input (edit & resend after a rewind); with `replaces`, only over exactly that text. */
  prefill(text: string, replaces?: string): void {
    this.post({ type: 'prefill', text, ...(replaces === undefined ? {} : { replaces }) });
  }

  /** Asks a side question and shows it in the page's overlay (the palette's Side Question). */
  async sideQuestion(question: string): Promise<void> {
    await this.reveal();
    await this.sessions.askSide(`side-${randomUUID()}`, question);
  }

  /** Brings the Chat view to the front. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
  }

  private receive(raw: unknown): void {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.logger.warn(`dropped a webview message: ${parsed.reason}`);
      return;
    }
    this.handle(parsed.message).catch((err: unknown) => {
      this.logger.error(`chat: ${parsed.message.type} failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
      void vscode.window.showErrorMessage(`Braid: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  private async handle(message: WebviewToHost): Promise<void> {
    switch (message.type) {
      case 'ready':
        if (message.protocol !== PROTOCOL_VERSION) this.logger.warn(`webview speaks protocol ${message.protocol}, host ${PROTOCOL_VERSION}`);
        this.ready = true;
        this.logger.info('chat webview ready');
        await this.snapshot();
        if (!this.restored) {
          this.restored = true;
          await this.sessions.restore(); // after a window reload: the session shown before
        }
        return;
      case 'framesAfter': {
        const frames = this.sessions.framesAfter(message.after);
        if (frames && this.sessions.currentId) this.post({ type: 'frames', sessionId: this.sessions.currentId, frames });
        else await this.snapshot();
        return;
      }
      case 'prompt':
        await this.sessions.prompt(message.requestId, message.text, message.steer === true);
        return;
      case 'cancel':
        this.sessions.cancel();
        return;
      case 'queueAction':
        await this.sessions.queueAction(message.action, message.promptId);
        return;
      case 'approval':
        this.sessions.approvals.answer(message.approvalId, message.decision);
        return;
      case 'loadOlder':
        this.sessions.olderPage(message.sessionId, message.before);
        return;
      case 'command':
        await vscode.commands.executeCommand(COMMANDS[message.name], ...(message.arg ? [message.arg] : []));
        return;
      case 'sideQuestion':
        await this.sessions.askSide(message.id, message.text);
        return;
      case 'keepSide': {
        const forkId = await this.sessions.keepSide(message.id);
        if (forkId) this.revealer?.(forkId);
        if (forkId) void vscode.window.showInformationMessage('Kept the side question as a fork of this session.', 'Open Fork').then((c) => c && vscode.commands.executeCommand('braid.openSession', forkId));
        return;
      }
      case 'messageAction': {
        const sessionId = this.sessions.currentId;
        if (!sessionId || !this.actionHandler) return;
        // A prompt sent from this page is named by its request id, which was its message key.
        const messageId = message.messageId ?? userMessageId(sessionId, message.requestId!);
        await this.actionHandler(message.action, sessionId, messageId);
        return;
      }
    }
  }

  /** Sends the page everything it shows, from scratch. */
  private async snapshot(): Promise<void> {
    if (!this.ready) return;
    const model = await this.modelInfo();
    const { session, live, cursor, promptHistory } = this.sessions.view();
    this.post({
      type: 'snapshot',
      protocol: PROTOCOL_VERSION,
      workspaceName: vscode.workspace.workspaceFolders?.[0]?.name ?? '',
      model,
      trusted: vscode.workspace.isTrusted,
      session,
      live,
      cursor,
      promptHistory,
    });
  }

  private modelInfo(): Promise<ModelInfo> {
    this.model ??= this.lookUpModel();
    return this.model;
  }

  private async lookUpModel(): Promise<ModelInfo> {
    const settings = readModelSettings();
    try {
      const { model, limits } = await chooseModel();
      if (limits) this.logger.info(`model ${model.provider}/${model.id}: context window ${limits.contextWindow} tokens (${limits.contextFrom}), answers up to ${limits.maxOutputTokens} (${limits.outputFrom})`);
      return { provider: model.provider, id: model.id, demo: settings.demo, ...(limits ? { limits } : {}) };
    } catch (err) {
      return { provider: settings.provider, id: settings.model, demo: settings.demo, problem: err instanceof Error ? err.message : String(err) };
    }
  }

  private post(message: HostToWebview): void {
    if (!this.view || !this.ready) return;
    void this.view.webview.postMessage(message);
  }
}
