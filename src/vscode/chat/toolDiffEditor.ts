// A write or edit tool call's change in VS Code's diff editor: the file as the turn found it
// (before its first change to the file) against the file as the call left it, both read from the
// session's checkpoint blobs through a read-only document provider, so the diff opens for any
// call in the log, after a reload, a rewind or a change of the file on disk.
import * as vscode from 'vscode';
import { BlobStore, CHECKPOINT_REMOVED } from '../../core/format/blobStore';
import path from 'node:path';
import type { FileDelta } from '../../core/store/changes';
import type { SessionStore } from '../../core/store/sessionStore';
import type { ChangeScope } from '../../protocol/frames';
import type { FileChangeRecord } from '../../core/wire/records';
import { scanWireLog } from '../../core/wire/wireReader';

/** The scheme of a checkpoint's document: braid-checkpoint:/<session>/<blob hash or "none">/<file path>. */
export const CHECKPOINT_SCHEME = 'braid-checkpoint';

/** Serves checkpoint documents from the store's session folders; a missing image reads as empty. */
export function registerCheckpointDocuments(store: SessionStore): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, {
    provideTextDocumentContent(uri) {
      const [sessionId, hash] = uri.path.split('/').slice(1, 3);
      if (!sessionId || !hash || hash === 'none') return '';
      const image = new BlobStore(store.layout.blobsDir(store.locate(sessionId))).find(hash);
      return image?.toString('utf8') ?? `(${CHECKPOINT_REMOVED}: braid gc removed the copy Braid kept of this file)\n`;
    },
  });
}

/** The file change a tool call of the session's main log made (its last, when it made several). */
export function fileChangeOf(store: SessionStore, sessionId: string, toolCallId: string): FileChangeRecord | undefined {
  let found: FileChangeRecord | undefined;
  scanWireLog(
    store.layout.agentLog(store.locate(sessionId)),
    (record) => {
      if ('unknown' in record || record.t !== 'file_change') return;
      if (record.toolCallId === toolCallId) found = record;
    },
    { only: ['file_change'] },
  );
  return found;
}

/** Opens the diff of a tool call's change; a clear message when the log has none (the call failed, was denied or is still running). */
export async function openToolDiff(store: SessionStore, sessionId: string, toolCallId: string): Promise<void> {
  const change = fileChangeOf(store, sessionId, toolCallId);
  if (!change) {
    void vscode.window.showInformationMessage('This tool call changed no file (yet): it was denied, failed, or is still running.');
    return;
  }
  const side = (hash: string | null) => vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${sessionId}/${hash ?? 'none'}/${change.path}` });
  const title = `${change.path} (turn ${change.turn}: before ↔ after)`;
  await vscode.commands.executeCommand('vscode.diff', side(change.before), side(change.after), title, { preview: true });
}

/**
 * Opens a file of the Changes list in the diff editor: its image at the start of the scope (or
 * when last kept) against the file in the workspace, which the user can edit there; a deleted
 * file's right side is empty.
 */
export async function openChangeDiff(store: SessionStore, sessionId: string, file: FileDelta, scope: ChangeScope): Promise<void> {
  const checkpoint = (hash: string | null) => vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${sessionId}/${hash ?? 'none'}/${file.path}` });
  const folder = file.root ?? store.get(sessionId).workspaceDir;
  const right = file.current === null ? checkpoint(null) : vscode.Uri.file(path.join(folder, file.path));
  const since = scope === 'turn' ? 'this turn' : 'this session';
  await vscode.commands.executeCommand('vscode.diff', checkpoint(file.baseline), right, `${file.path} (Braid's changes in ${since})`, { preview: true });
}
