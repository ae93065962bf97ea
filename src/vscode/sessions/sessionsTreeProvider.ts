import * as vscode from 'vscode';

/** A row of the Sessions tree. */
export interface SessionTreeItem {
  readonly id: string;
  readonly label: string;
}

/**
 * The Sessions tree. Until the session store lands it has no rows, and the view shows its
 * welcome content (package.json `viewsWelcome`) pointing the user at the Chat view.
 */
export class SessionsTreeProvider implements vscode.TreeDataProvider<SessionTreeItem>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionTreeItem | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  getTreeItem(element: SessionTreeItem): vscode.TreeItem {
    const item = new vscode.TreeItem(element.label, vscode.TreeItemCollapsibleState.None);
    item.id = element.id;
    return item;
  }

  getChildren(): SessionTreeItem[] {
    return [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
