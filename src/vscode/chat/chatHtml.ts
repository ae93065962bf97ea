import type * as vscode from 'vscode';
import { webviewHtml } from '../webviewHtml';

/** The Chat page: see {@link webviewHtml} for its CSP. */
export function chatHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  initial: Record<string, unknown>,
  joinPath: (base: vscode.Uri, ...parts: string[]) => vscode.Uri,
): string {
  return webviewHtml(webview, extensionUri, { script: 'webview.js', style: 'webview-style.css', title: 'Braid Chat', initial }, joinPath);
}
