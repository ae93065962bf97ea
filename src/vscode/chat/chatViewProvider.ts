import * as vscode from 'vscode';
import { InMemoryConversation } from '../../core/chat/conversation';
import type { Logger } from '../../core/logger';
import { resolveApiKey } from '../../core/model/apiKey';
import { ModelConfigError, resolveModel, type ModelSettings } from '../../core/model/modelSettings';
import { PROTOCOL_VERSION, parseWebviewMessage, type HostToWebview, type ModelInfo, type WebviewToHost } from '../../protocol/messages';
import { Disposable, disposeAll } from '../disposable';
import { affectsModelSettings, readModelSettings } from '../settings';
import { chatHtml } from './chatHtml';

const SYSTEM_PROMPT = 'You are Braid, a coding agent working in the user\'s VS Code workspace. Answer concisely.';

/**
 * The Chat webview view. Talks to the page only through the typed protocol: it waits for the
 * page's `ready` before posting anything, validates every incoming message, and never keeps the
 * page alive while hidden (the page asks again with `ready` when it comes back).
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = 'braid.chat';
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private conversation: InMemoryConversation | undefined;
  private activeRequest: string | undefined;

  constructor(private readonly extensionUri: vscode.Uri, private readonly logger: Logger) {
    super();
    this._register(vscode.workspace.onDidChangeConfiguration((event) => {
      if (!affectsModelSettings(event)) return;
      this.conversation = undefined;
      this.post({ type: 'modelChanged', model: this.modelInfo() });
    }));
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
        if (message.protocol !== PROTOCOL_VERSION) {
          this.logger.warn(`webview speaks protocol ${message.protocol}, host ${PROTOCOL_VERSION}`);
        }
        this.ready = true;
        this.logger.info('chat webview ready');
        this.post({
          type: 'init',
          protocol: PROTOCOL_VERSION,
          workspaceName: vscode.workspace.workspaceFolders?.[0]?.name ?? '',
          model: this.modelInfo(),
        });
        return;
      case 'prompt':
        await this.runPrompt(message.requestId, message.text);
        return;
      case 'cancel':
        if (this.activeRequest === message.requestId) this.conversation?.cancel();
        return;
    }
  }

  private async runPrompt(requestId: string, text: string): Promise<void> {
    if (this.activeRequest) {
      this.post({ type: 'turnEnd', requestId, outcome: 'failed', error: 'A turn is already running; wait for it or press Stop.' });
      return;
    }
    let conversation: InMemoryConversation;
    try {
      conversation = this.conversation ??= this.createConversation(readModelSettings());
    } catch (err) {
      const error = err instanceof ModelConfigError ? err.message : `Could not start the model: ${String(err)}`;
      this.post({ type: 'turnEnd', requestId, outcome: 'failed', error });
      return;
    }
    this.activeRequest = requestId;
    this.logger.info(`turn ${requestId} started`);
    try {
      const result = await conversation.run(text, (delta) => this.post({ type: 'turnDelta', requestId, text: delta }));
      this.logger.info(`turn ${requestId} ${result.outcome}${result.error ? `: ${result.error}` : ''}`);
      this.post({ type: 'turnEnd', requestId, ...result });
    } finally {
      this.activeRequest = undefined;
    }
  }

  private createConversation(settings: ModelSettings): InMemoryConversation {
    const model = resolveModel(settings);
    return new InMemoryConversation({
      model,
      systemPrompt: SYSTEM_PROMPT,
      apiKey: () => resolveApiKey(settings.provider, process.env),
      logger: this.logger,
    });
  }

  private modelInfo(): ModelInfo {
    const settings = readModelSettings();
    try {
      resolveModel(settings);
      return { provider: settings.provider, id: settings.model, demo: settings.demo };
    } catch (err) {
      return { provider: settings.provider, id: settings.model, demo: settings.demo, problem: err instanceof Error ? err.message : String(err) };
    }
  }

  private post(message: HostToWebview): void {
    if (!this.view || !this.ready) return;
    void this.view.webview.postMessage(message);
  }
}
