import * as vscode from 'vscode';
import { userMessageId } from '../../core/ids';
import type { Logger } from '../../core/logger';
import type { SessionStore } from '../../core/store/sessionStore';
import { PROTOCOL_VERSION, parseWebviewMessage, type HostToWebview, type ModelInfo, type WebviewToHost } from '../../protocol/messages';
import { Disposable, disposeAll } from '../disposable';
import { chooseModel } from '../lm/chooseModel';
import { affectsModelSettings, readModelSettings } from '../settings';
import { chatHtml } from './chatHtml';
import { ChatSessions } from './chatSessions';

/**
 * The Chat webview view. Talks to the page only through the typed protocol: it waits for the
 * page's `ready` before posting anything, validates every incoming message, and never keeps the
 * page alive while hidden (the page asks again with `ready` when it comes back, and gets the
 * transcript from the log).
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = 'braid.chat';
  private view: vscode.WebviewView | undefined;
  private ready = false;
  readonly sessions: ChatSessions;
  private actionHandler: ((action: 'rewind' | 'fork' | 'edit', sessionId: string, messageId: string) => Promise<void>) | undefined;

  constructor(private readonly extensionUri: vscode.Uri, store: SessionStore | undefined, secrets: vscode.SecretStorage, private readonly logger: Logger) {
    super();
    this.sessions = this._register(new ChatSessions(store, secrets, logger, (m) => this.post(m)));
    this._register(vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsModelSettings(event)) void this.modelInfo().then((model) => this.post({ type: 'modelChanged', model }));
    }));
    // Models VS Code offers come and go (an extension activates, Copilot signs in).
    this._register(vscode.lm.onDidChangeChatModels(() => void this.modelInfo().then((model) => this.post({ type: 'modelChanged', model }))));
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

  /** Puts text in the chat input (edit & resend after a rewind). */
  prefill(text: string): void {
    this.post({ type: 'prefill', text });
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
    void this.handle(parsed.message);
  }

  private async handle(message: WebviewToHost): Promise<void> {
    switch (message.type) {
      case 'ready':
        if (message.protocol !== PROTOCOL_VERSION) this.logger.warn(`webview speaks protocol ${message.protocol}, host ${PROTOCOL_VERSION}`);
        this.ready = true;
        this.logger.info('chat webview ready');
        this.post({
          type: 'init',
          protocol: PROTOCOL_VERSION,
          workspaceName: vscode.workspace.workspaceFolders?.[0]?.name ?? '',
          model: await this.modelInfo(),
          session: this.sessions.view(),
        });
        return;
      case 'prompt':
        await this.sessions.prompt(message.requestId, message.text);
        return;
      case 'cancel':
        this.sessions.cancel(message.requestId);
        return;
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

  private async modelInfo(): Promise<ModelInfo> {
    const settings = readModelSettings();
    try {
      const { model } = await chooseModel();
      return { provider: model.provider, id: model.id, demo: settings.demo };
    } catch (err) {
      return { provider: settings.provider, id: settings.model, demo: settings.demo, problem: err instanceof Error ? err.message : String(err) };
    }
  }

  private post(message: HostToWebview): void {
    if (!this.view || !this.ready) return;
    void this.view.webview.postMessage(message);
  }
}
