import * as vscode from 'vscode';

/** A notification with an Undo that is still open, by what it undoes. */
interface OpenToast {
  stale: boolean;
}

const open = new Map<string, OpenToast>();

/**
 * Shows `note` with an Undo button that runs `undo`. `key` names what it undoes ("rewind:<session>"):
 * a newer notification for the same thing, or the same thing undone another way (settleUndoToast),
 * makes this one's Undo say so instead of acting twice.
 */
export function showUndoToast(key: string, note: string, undo: () => unknown): void {
  const previous = open.get(key);
  if (previous) previous.stale = true;
  const toast: OpenToast = { stale: false };
  open.set(key, toast);
  void vscode.window.showInformationMessage(note, 'Undo').then((pick) => {
    if (open.get(key) === toast) open.delete(key);
    if (!pick) return;
    if (toast.stale) void vscode.window.showInformationMessage('That was undone already.');
    else undo();
  });
}

/**
 * What `key` names was undone another way (the chat's own Undo): its notification leaves the
 * screen. The API cannot close one notification, so the toasts are hidden (the notification
 * centre keeps them), and this one's Undo no longer acts.
 */
export async function settleUndoToast(key: string): Promise<void> {
  const toast = open.get(key);
  if (!toast) return;
  toast.stale = true;
  open.delete(key);
  await vscode.commands.executeCommand('notifications.hideToasts');
}
