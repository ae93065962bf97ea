import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';

/** Escapes text for an HTML attribute value. */
export function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The Chat page: a strict CSP (nothing by default, our script by nonce, our stylesheet by
 * origin), no inline script, and initial data in an escaped data- attribute.
 */
export function chatHtml(webview: vscode.Webview, extensionUri: vscode.Uri, initial: Record<string, unknown>, joinPath: (base: vscode.Uri, ...parts: string[]) => vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(joinPath(extensionUri, 'dist', 'webview.js'));
  const style = webview.asWebviewUri(joinPath(extensionUri, 'dist', 'webview-style.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Braid Chat</title>
</head>
<body data-initial="${escapeAttribute(JSON.stringify(initial))}">
<div id="app" role="main"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
