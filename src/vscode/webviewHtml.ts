import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';

/** Escapes text for an HTML attribute value. */
export function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** One of Braid's pages: its bundled script and stylesheet in dist/, its title, the data it starts with. */
export interface WebviewPage {
  readonly script: string;
  readonly style: string;
  readonly title: string;
  readonly initial: Record<string, unknown>;
}

/**
 * A page of Braid's (the Chat view, the Usage view): a strict CSP (nothing by default, our script
 * by nonce, our stylesheet by origin), no inline script, and initial data in an escaped data- attribute.
 */
export function webviewHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  page: WebviewPage,
  joinPath: (base: vscode.Uri, ...parts: string[]) => vscode.Uri,
): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(joinPath(extensionUri, 'dist', page.script));
  const style = webview.asWebviewUri(joinPath(extensionUri, 'dist', page.style));
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
<title>${escapeAttribute(page.title)}</title>
</head>
<body data-initial="${escapeAttribute(JSON.stringify(page.initial))}">
<div id="app" role="main"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
