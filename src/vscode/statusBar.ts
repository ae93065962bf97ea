import * as vscode from 'vscode';
import { cutTitle, labelText } from '../core/format/titles';
import type { ModelInfo } from '../protocol/messages';
import { Disposable } from './disposable';

/** The status bar is shared with other extensions: a title takes at most this many characters there. */
const STATUS_TITLE_MAX = 30;

/** What the status bar shows of the Chat view's session. */
export interface StatusInfo {
  readonly title: string;
  readonly tokens: number;
}

/** Lines another feature adds to the item's tooltip (the last push and pull of sessions), and a way to hear that they changed. */
export interface StatusNotes {
  tooltipLines(): string[];
  onDidChange(listener: () => void): () => void;
}

/** The status bar item: session title, model and tokens; a click opens the session picker. */
export class SessionStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('braid.session', vscode.StatusBarAlignment.Right, 100));
  private shown: { info: StatusInfo | undefined; model: ModelInfo | undefined } = { info: undefined, model: undefined };

  constructor(private readonly notes?: StatusNotes) {
    super();
    this.item.name = 'Braid Session';
    this.item.command = 'braid.openSession';
    this.update(undefined, undefined);
    if (notes) this._register({ dispose: notes.onDidChange(() => this.update(this.shown.info, this.shown.model)) });
    this.item.show();
  }

  /** Shows the session, with the model the Chat page's header names (the one its next prompt uses). */
  update(info: StatusInfo | undefined, model: ModelInfo | undefined): void {
    this.shown = { info, model };
    const notes = (this.notes?.tooltipLines() ?? []).map((line) => `\n${line}`).join('');
    if (!info) {
      this.item.text = '$(comment-discussion) Braid';
      this.item.tooltip = `Braid: open a session${notes}`;
      return;
    }
    const tokens = info.tokens >= 1000 ? `${(info.tokens / 1000).toFixed(1)}k` : String(info.tokens);
    const title = labelText(info.title) || 'New session';
    const id = model?.id || 'no model';
    const named = model?.id ? `${model.provider} · ${model.id}` : 'none configured';
    this.item.text = `$(comment-discussion) ${cutTitle(title, STATUS_TITLE_MAX)} · ${id} · ${tokens} tokens`;
    this.item.tooltip = `Braid session "${title}"\nModel: ${named} (the next prompt's)\nTokens so far: ${info.tokens}\nClick to open another session${notes}`;
  }
}
