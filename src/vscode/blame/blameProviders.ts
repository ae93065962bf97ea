// The hover and the CodeLens on the lines of a file that Braid turns wrote (docs/ui.md, Blame in
// the editor). Both read the authors from one DocumentBlame, kept per version of the document.
import * as vscode from 'vscode';
import { OPEN_SESSION_COMMAND } from '../commandIds';
import { readBlameCodeLens } from '../settings';
import { authorRuns, hoverMarkdown, lensTitle, openTurnArgs } from './blameText';
import type { BlamedDocument, DocumentBlame } from './documentBlame';

/** The document as blame takes it; undefined outside the window's folders (only their files are blamed). */
export function blamedDocument(doc: vscode.TextDocument): BlamedDocument | undefined {
  const folder = doc.uri.scheme === 'file' ? vscode.workspace.getWorkspaceFolder(doc.uri) : undefined;
  if (!folder) return undefined;
  return { key: doc.uri.toString(), version: doc.version, file: doc.uri.fsPath, folder: folder.uri.fsPath, text: () => doc.getText() };
}

/** "Written by Braid: …" over a line a turn wrote, with a link that opens its session at the turn. */
export class BlameHoverProvider implements vscode.HoverProvider {
  constructor(private readonly blame: DocumentBlame) {}

  provideHover(doc: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const blamed = blamedDocument(doc);
    const author = blamed && this.blame.authors(blamed)[position.line];
    if (!author) return undefined;
    const markdown = new vscode.MarkdownString(hoverMarkdown(author));
    // Its one link runs Open Session; no other command can run from it (the prompt is escaped besides).
    markdown.isTrusted = { enabledCommands: [OPEN_SESSION_COMMAND] };
    return new vscode.Hover(markdown, doc.lineAt(position.line).range);
  }
}

/** With `braid.blame.codeLens` on, a CodeLens above each run of lines one turn wrote. */
export class BlameCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changes = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changes.event;

  constructor(private readonly blame: DocumentBlame) {}

  /** Asks VS Code for the lenses again (the index or the setting changed). */
  refresh(): void {
    this.changes.fire();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const blamed = readBlameCodeLens() ? blamedDocument(doc) : undefined;
    if (!blamed) return [];
    return authorRuns(this.blame.authors(blamed)).map(
      ({ first, author }) =>
        new vscode.CodeLens(new vscode.Range(first, 0, first, 0), {
          title: lensTitle(author),
          tooltip: 'Open the session in the Chat view at the turn that wrote these lines',
          command: OPEN_SESSION_COMMAND,
          arguments: openTurnArgs(author),
        }),
    );
  }

  dispose(): void {
    this.changes.dispose();
  }
}
