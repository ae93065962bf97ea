// Braid: Show Setup: the window's setup (setupText, with the window's MCP servers' status) as a
// read-only document, shown again when the setup is read again (a setting, a setup file, trust or
// an approval changed). A virtual document has no buttons: when something waits for approval, a
// message offers Braid: Approve Project Setup….
import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import { pendingApprovals } from '../../core/setup/projectSetupApproval';
import { setupText } from '../../core/setup/setupText';
import { APPROVE_PROJECT_SETUP_COMMAND } from '../commandIds';
import { Disposable } from '../disposable';
import type { SetupWatcher } from './setupWatcher';
import { WindowMcp } from './windowMcp';

/** The scheme of the setup document: braid-setup:/Braid Setup. */
export const SETUP_SCHEME = 'braid-setup';
const SETUP_URI = vscode.Uri.from({ scheme: SETUP_SCHEME, path: '/Braid Setup' });

/** How to approve or revoke, in VS Code. */
const APPROVE_NOTE =
  "To approve a project's servers or hooks (or revoke an approval), run Braid: Approve Project Setup… (in a terminal: braid mcp trust <name>, braid hooks trust); this document follows.";

/** What the document names as the way to approve. */
const APPROVE_IN_VSCODE = { server: () => 'Braid: Approve Project Setup…', settings: 'Braid: Approve Project Setup…' };

/** The setup document, built from the setup as last read each time VS Code asks. */
export class SetupDocument extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly changed = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;

  constructor(private readonly setup: SetupWatcher) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(SETUP_SCHEME, this));
    this._register(setup.onDidChange(() => this.changed.fire(SETUP_URI)));
  }

  provideTextDocumentContent(): string {
    try {
      const sources = this.setup.current();
      // The window's hub: its servers' state and tools as the chat's turns use them.
      const hub = WindowMcp.of(this.setup)?.current();
      return `${setupText(hub?.sources ?? sources, { ...(hub ? { hub } : {}), approveWith: APPROVE_IN_VSCODE })}\n${APPROVE_NOTE}\n`;
    } catch (err) {
      return `${errorMessage(err)}\n`;
    }
  }

  async show(): Promise<void> {
    this.changed.fire(SETUP_URI);
    await vscode.window.showTextDocument(SETUP_URI, { preview: false });
    this.offerApproval();
  }

  private offerApproval(): void {
    if (!vscode.workspace.isTrusted || !this.setup.workspaceDir) return;
    const pending = pendingApprovals(this.setup.current());
    if (pending.length === 0) return;
    const approve = 'Approve…';
    void vscode.window
      .showInformationMessage(`${pending.length} of this project's MCP servers and settings files wait for your approval.`, approve)
      .then((answer) => (answer === approve ? vscode.commands.executeCommand(APPROVE_PROJECT_SETUP_COMMAND) : undefined));
  }
}
