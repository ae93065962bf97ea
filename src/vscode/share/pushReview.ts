import * as vscode from 'vscode';
import { Disposable } from '../disposable';

const PUSH_REVIEW_URI = vscode.Uri.from({ scheme: 'braid-push', path: '/Push Review' });

/**
 * The details of the latest push's or sync's dry run (each session, every redaction with its
 * sample) as a read-only document: nothing to save or edit, and closing it asks nothing. Each dry
 * run replaces the text, so a tab left open never shows an earlier one's.
 */
export class PushReviewDocument extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly changed = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;
  private text = 'No push reviewed yet: run Braid: Push Sessions to Git Remote….\n';

  constructor() {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(PUSH_REVIEW_URI.scheme, this));
  }

  provideTextDocumentContent(): string {
    return this.text;
  }

  /** Puts `text` in the document: a tab showing it shows the text at once; none is opened. */
  update(text: string): void {
    this.text = text;
    this.changed.fire(PUSH_REVIEW_URI);
  }

  /** Shows `text` in the document, opened beside what the editor shows, the focus left where it is. */
  async show(text: string): Promise<void> {
    this.update(text);
    await vscode.window.showTextDocument(PUSH_REVIEW_URI, { preview: true, preserveFocus: true });
  }
}
