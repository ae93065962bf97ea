import * as vscode from 'vscode';
import type { ChatSurface } from './chatPage';

/** Where the view's page goes: the window's chat (ChatHub), named by what the view uses so the two do not import each other. */
export interface ChatPageHost {
  attach(surface: ChatSurface): unknown;
}

/**
 * The side bar's Chat view: a Chat page hosted in a webview view. The view is never kept alive
 * while hidden; a page that comes back says `ready` and gets a snapshot.
 */
export class ChatViewProvider implements vscode.WebviewViewProvider {
  static readonly viewId = 'braid.chat';

  constructor(
    private readonly hub: ChatPageHost,
    /** Told each time the view is shown with a page (the first screen's pointer to Braid then goes). */
    private readonly onResolved: () => void = () => undefined,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.onResolved();
    // A view that is moved or re-created is resolved again, with a page of its own.
    this.hub.attach({
      webview: view.webview,
      place: 'view',
      visible: () => view.visible,
      reveal: () => void vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`),
      onDidDispose: view.onDidDispose,
    });
  }
}
