import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import type { SessionStore } from '../../core/store/sessionStore';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import { parseUsagePageMessage, type UsageHostMessage, type UsagePageMessage, type UsageScope } from '../../protocol/usage';
import { Disposable } from '../disposable';
import { webviewHtml } from '../webviewHtml';
import { usageViewData } from './usageViewData';
import { usageByAgent } from '../../core/store/agentUsage';
import { UsageLogReader } from '../../core/store/usageLogReader';

/** Changes to the index come in bursts (a turn's end updates state, then the row): one redraw per burst. */
const REDRAW_DELAY_MS = 300;

/**
 * The Usage view (Braid: Show Usage, /usage): a webview panel in the editor area with the same
 * figures as `braid usage`, redrawn when the index changes. A webview rather than a document:
 * it has nothing to save, so closing it never asks, and it can draw the chart and switch between
 * this workspace and all of them. One panel at a time; showing it again brings it to the front.
 */
export class UsagePanel extends Disposable {
  static readonly viewType = 'braid.usage';
  private panel: vscode.WebviewPanel | undefined;
  private scope: UsageScope;
  private redraw: NodeJS.Timeout | undefined;
  /** Reads each session's log once, then what it appended: a redraw costs the new lines. */
  private readonly logs: UsageLogReader;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: SessionStore,
    private readonly workspaceDir: string | undefined,
    private readonly logger: Logger,
  ) {
    super();
    this.scope = workspaceDir ? 'workspace' : 'all';
    this.logs = new UsageLogReader(store);
    this._register({ dispose: () => clearTimeout(this.redraw) });
    this._register({ dispose: store.index.onDidChange(() => this.scheduleRedraw()) });
    this._register({ dispose: () => this.panel?.dispose() });
  }

  /** Opens the view, or brings it to the front. */
  show(): void {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const panel = vscode.window.createWebviewPanel(UsagePanel.viewType, 'Braid Usage', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [dist],
    });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'braid.svg');
    panel.webview.html = webviewHtml(
      panel.webview,
      this.extensionUri,
      { script: 'usage.js', style: 'usage-style.css', title: 'Braid Usage', initial: {} },
      vscode.Uri.joinPath,
    );
    const received = panel.webview.onDidReceiveMessage((raw: unknown) => {
      const message = parseUsagePageMessage(raw);
      if (message) void this.receive(message);
      else this.logger.warn('usage view: dropped a malformed message');
    });
    panel.onDidDispose(() => {
      received.dispose();
      this.panel = undefined;
    });
    this.panel = panel;
  }

  private async receive(message: UsagePageMessage): Promise<void> {
    switch (message.type) {
      case 'ready': // the page loaded, or came back after being hidden
        this.post();
        return;
      case 'scope':
        this.scope = message.scope === 'workspace' && this.workspaceDir ? 'workspace' : 'all';
        this.post();
        return;
      case 'openSession':
        await vscode.commands.executeCommand('braid.openSession', message.id);
        return;
    }
  }

  private scheduleRedraw(): void {
    if (!this.panel?.visible || this.redraw) return;
    this.redraw = setTimeout(() => {
      this.redraw = undefined;
      this.post();
    }, REDRAW_DELAY_MS);
  }

  private post(): void {
    if (!this.panel) return;
    const store = this.store;
    const key = this.scope === 'workspace' && this.workspaceDir ? workspaceKey(this.workspaceDir) : undefined;
    const context = {
      scope: key ? ('workspace' as const) : ('all' as const),
      workspaceName: vscode.workspace.workspaceFolders?.[0]?.name ?? null,
      now: Date.now(),
    };
    const logs = this.logs.logs(key);
    const data = usageViewData(store.index.usageReport(key), (id) => store.index.get(id), context, logs, usageByAgent(store, logs));
    const message: UsageHostMessage = { type: 'usage', data };
    void this.panel.webview.postMessage(message);
  }
}
