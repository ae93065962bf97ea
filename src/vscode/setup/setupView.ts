// Braid: Show Setup: the window's setup (setupText) as a read-only document, shown again when the
// setup is read again (a setting, a setup file or trust changed).
import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import { setupText } from '../../core/setup/setupText';
import { Disposable } from '../disposable';
import type { SetupWatcher } from './setupWatcher';

/** The scheme of the setup document: braid-setup:/Braid Setup. */
export const SETUP_SCHEME = 'braid-setup';
const SETUP_URI = vscode.Uri.from({ scheme: SETUP_SCHEME, path: '/Braid Setup' });

/** How to approve, in VS Code (the document has no button for it yet). */
const APPROVE_NOTE =
  "To approve a project's servers or hooks, run braid mcp trust <name> or braid hooks trust in a terminal of this folder; this document follows.";

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
      return `${setupText(this.setup.current())}\n${APPROVE_NOTE}\n`;
    } catch (err) {
      return `${errorMessage(err)}\n`;
    }
  }

  async show(): Promise<void> {
    this.changed.fire(SETUP_URI);
    await vscode.window.showTextDocument(SETUP_URI, { preview: false });
  }
}
