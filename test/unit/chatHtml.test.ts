import assert from 'node:assert/strict';
import { test } from 'node:test';
import type * as vscode from 'vscode';
import { chatHtml } from '../../src/vscode/chat/chatHtml';

const fakeUri = (p: string) => ({ path: p, toString: () => `https://webview.test${p}` }) as unknown as vscode.Uri;
const webview = { cspSource: 'https://webview.test', asWebviewUri: (u: vscode.Uri) => u } as unknown as vscode.Webview;
const join = (base: vscode.Uri, ...parts: string[]) => fakeUri([(base as unknown as { path: string }).path, ...parts].join('/'));

test('the chat page has a strict CSP and runs only our script, by nonce', () => {
  const html = chatHtml(webview, fakeUri('/ext'), { a: 1 }, join);
  const csp = /content="([^"]+)"/.exec(html)?.[1] ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.doesNotMatch(csp, /unsafe-(inline|eval)/);
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  assert.ok(nonce && nonce.length >= 16);
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
  assert.equal(scripts.length, 1);
  assert.ok(scripts[0]!.includes(`nonce="${nonce}"`) && scripts[0]!.includes('/ext/dist/webview.js'));
  assert.notEqual(nonce, /script-src 'nonce-([^']+)'/.exec(chatHtml(webview, fakeUri('/ext'), {}, join))?.[1], 'a fresh nonce per page');
});

test('initial data cannot break out of its attribute', () => {
  const html = chatHtml(webview, fakeUri('/ext'), { title: '"><script>alert(1)</script>' }, join);
  assert.equal([...html.matchAll(/<script/g)].length, 1);
  const attr = /data-initial="([^"]*)"/.exec(html)?.[1] ?? '';
  const decoded = attr
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  assert.deepEqual(JSON.parse(decoded), { title: '"><script>alert(1)</script>' });
});
