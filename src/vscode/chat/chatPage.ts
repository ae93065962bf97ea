import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { PROTOCOL_VERSION, type HostToWebview, type WebviewToHost } from '../../protocol/messages';
import { parseWebviewMessage } from '../../protocol/validate';
import { Disposable } from '../disposable';
import { chatHtml } from './chatHtml';

/** Where a Chat page is hosted: the side bar's Chat view or an editor tab. */
export type ChatPlace = 'view' | 'editor';

/** How a hosting surface (a webview view or panel) lets the chat see and show it. */
export interface ChatSurface {
  readonly webview: vscode.Webview;
  readonly place: ChatPlace;
  /** True while the page is on screen. */
  visible(): boolean;
  /** Brings the page to the front and focuses it. */
  reveal(): void;
  /** Fires when the surface goes away for good. */
  readonly onDidDispose: vscode.Event<void>;
}

/**
 * One Chat page: the same bundle and protocol wherever it is hosted. It loads the page, validates
 * every message the page sends (unknown or malformed ones are dropped with a log line), and posts
 * only after the page said `ready`: each page has its own handshake, and its own cursor in the
 * session's frames, which the page keeps.
 */
export class ChatPage extends Disposable {
  private ready = false;

  constructor(
    readonly surface: ChatSurface,
    extensionUri: vscode.Uri,
    private readonly logger: Logger,
    onMessage: (page: ChatPage, message: WebviewToHost) => void,
    onDispose: (page: ChatPage) => void,
  ) {
    super();
    const { webview } = surface;
    webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
    };
    webview.html = chatHtml(webview, extensionUri, { protocol: PROTOCOL_VERSION, place: surface.place }, vscode.Uri.joinPath);
    this._register(
      webview.onDidReceiveMessage((raw: unknown) => {
        const parsed = parseWebviewMessage(raw);
        if (!parsed.ok) {
          this.logger.warn(`dropped a webview message: ${parsed.reason}`);
          return;
        }
        if (parsed.message.type === 'ready') this.ready = true;
        onMessage(this, parsed.message);
      }),
    );
    this._register(
      surface.onDidDispose(() => {
        this.dispose();
        onDispose(this);
      }),
    );
  }

  /** True once the page said `ready` (a page shown again says it again). */
  get isReady(): boolean {
    return this.ready;
  }

  /** Posts to the page; dropped before its handshake (the snapshot it then gets says it all). */
  post(message: HostToWebview): void {
    if (this.ready) void this.surface.webview.postMessage(message);
  }

  override dispose(): void {
    this.ready = false;
    super.dispose();
  }
}
