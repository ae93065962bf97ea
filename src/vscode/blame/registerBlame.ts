import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import { blameFile, blameWorkspaceKeys } from '../../core/store/blame';
import type { SessionStore } from '../../core/store/sessionStore';
import { BlameCodeLensProvider, BlameHoverProvider } from './blameProviders';
import { DocumentBlame } from './documentBlame';

/** How long the CodeLenses wait after a change of the index before they are asked for again: a running turn changes it often. */
const LENS_REFRESH_MS = 500;

/**
 * Blame in the editor: a hover on each line a Braid turn wrote, and with `braid.blame.codeLens` a
 * CodeLens above each run of them, for the files of the window's folders. Blame reads Braid's
 * own logs and index only (no git), so it works in untrusted workspaces too.
 */
export function registerBlame(context: vscode.ExtensionContext, deps: { store: SessionStore | undefined; logger: Logger }): void {
  const { store, logger } = deps;
  if (!store) return;
  const blame = new DocumentBlame(
    (file, folder, text) => {
      const keys = blameWorkspaceKeys(store.index, folder, file);
      return keys.length === 0 ? [] : blameFile(store.index, store.layout, keys, file, text).map((l) => l.author);
    },
    (file, err) => logger.warn(`blame of ${file}: ${errorMessage(err)}`),
  );
  const lenses = new BlameCodeLensProvider(blame);
  let pending: NodeJS.Timeout | undefined;
  const stopFollowing = store.index.onDidChange(() => {
    blame.clear();
    clearTimeout(pending);
    pending = setTimeout(() => lenses.refresh(), LENS_REFRESH_MS);
  });
  const files = { scheme: 'file' };
  context.subscriptions.push(
    lenses,
    vscode.languages.registerHoverProvider(files, new BlameHoverProvider(blame)),
    vscode.languages.registerCodeLensProvider(files, lenses),
    vscode.workspace.onDidCloseTextDocument((doc) => blame.forget(doc.uri.toString())),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('braid.blame.codeLens') && lenses.refresh()),
    { dispose: () => (stopFollowing(), clearTimeout(pending)) },
  );
}
