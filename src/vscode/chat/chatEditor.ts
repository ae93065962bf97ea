import * as vscode from 'vscode';
import { cutTitle } from '../../core/format/titles';
import { Disposable } from '../disposable';
import type { ChatHub } from './chatHub';

/** The editor tab's title when the session has none yet. */
const UNTITLED = 'Braid Chat';

/** A tab title: the session's title on one line, cut to what a tab shows. */
export function editorTitle(title: string | undefined): string {
  return cutTitle(title ?? '', 40) || UNTITLED;
}

/**
 * Braid: Open Chat in Editor — the chat in an editor tab: the same page as the side bar's Chat
 * view, on the same current session, kept in step by the same frames. One tab per window (the
 * window has one current session); opening again brings it forward. After a reload VS Code
 * restores the tab through this serializer, and the page does its own handshake.
 */
export class ChatEditor extends Disposable implements vscode.WebviewPanelSerializer {
  static readonly viewType = 'braid.chatEditor';
  private panel: vscode.WebviewPanel | undefined;

  constructor(private readonly hub: ChatHub) {
    super();
    this._register(vscode.window.registerWebviewPanelSerializer(ChatEditor.viewType, this));
    this._register(hub.current.onDidChange(() => this.retitle()));
  }

  /** Opens the chat in an editor tab, or brings the open one forward. */
  open(): void {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    this.adopt(vscode.window.createWebviewPanel(ChatEditor.viewType, UNTITLED, vscode.ViewColumn.Active, {}));
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    if (this.panel) {
      panel.dispose(); // one chat tab per window
      return;
    }
    this.adopt(panel);
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    panel.iconPath = new vscode.ThemeIcon('comment-discussion');
    const page = this.hub.attach({
      webview: panel.webview,
      place: 'editor',
      visible: () => panel.visible,
      reveal: () => panel.reveal(),
      onDidDispose: panel.onDidDispose,
    });
    if (panel.active) this.hub.activate(page);
    panel.onDidChangeViewState(({ webviewPanel }) => {
      if (webviewPanel.active) this.hub.activate(page);
    });
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
    this.retitle();
  }

  private retitle(): void {
    if (this.panel) this.panel.title = editorTitle(this.hub.current.status()?.title);
  }
}
