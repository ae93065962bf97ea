import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import { SessionStore } from '../../core/store/sessionStore';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import { registerCommands } from '../commands';
import type { CommandContext } from '../commands/commandContext';
import { offerRelink } from '../commands/relinkOffer';
import { storageCommands } from '../commands/storageCommands';
import { checkStorageBudget, StorageDocuments } from './storageView';

/** Opens the session store in globalStorage; without it Braid still runs, with an empty tree and a logged reason. */
export async function openStore(context: vscode.ExtensionContext, logger: Logger, workspaceDir: string | undefined): Promise<SessionStore | undefined> {
  try {
    const store = await SessionStore.open({
      root: context.globalStorageUri.fsPath,
      wasmPath: vscode.Uri.joinPath(context.extensionUri, 'dist', 'sql-wasm.wasm').fsPath,
      logger,
      workspaceKey: workspaceDir ? workspaceKey(workspaceDir) : undefined, // its index loads now, the others' when a view asks
      watch: true,
      verifyAfterMs: 5_000, // the whole-index checks, after activation rather than in it
    });
    context.subscriptions.push({ dispose: () => void store.close() });
    return store;
  } catch (err) {
    logger.error(`cannot open the session store in ${context.globalStorageUri.fsPath}: ${errorMessage(err)}`);
    void vscode.window.showErrorMessage('Braid could not open its session store; see "Braid: Show Log" for the reason.');
    return undefined;
  }
}

/**
 * The storage report and review (Show Storage, Review Removable Storage…), and the store's upkeep
 * in the background: this workspace's rows brought up to date, crashed sessions marked, the trash
 * purged, a moved folder's sessions offered back, the storage budget checked.
 */
export function registerStorage(context: vscode.ExtensionContext, ctx: CommandContext, store: SessionStore | undefined): void {
  const storageDocuments = store ? new StorageDocuments(store) : undefined;
  if (storageDocuments) context.subscriptions.push(storageDocuments);
  registerCommands(context, ctx.logger, storageCommands(ctx, storageDocuments));
  if (store) startUpkeep(context, store, ctx);
}

function startUpkeep(context: vscode.ExtensionContext, store: SessionStore, ctx: CommandContext): void {
  const { logger, workspaceDir } = ctx;
  if (ctx.workspaceKey) {
    // The first page came from the index; bring this workspace's rows up to date in the background.
    void store.index.catchUpWithFolders(ctx.workspaceKey).catch((err: unknown) => logger.warn(`reconciling sessions failed: ${errorMessage(err)}`));
    // Sessions a crash left running (their writer's lease gone stale) become interrupted.
    void store.recoverInterrupted(workspaceDir!).catch((err: unknown) => logger.warn(`recovering interrupted sessions failed: ${errorMessage(err)}`));
    store.purgeTrash(); // each entry it purges is named in the log
    // A folder that was moved or renamed: its sessions are offered back.
    if (store.index.count({ workspaceKey: ctx.workspaceKey }) === 0) void offerRelink(store, workspaceDir!, logger);
  }
  // Once per window start, off the activation path: the measure walks the whole data folder.
  const budgetCheck = setTimeout(() => checkStorageBudget(store, logger), 3000);
  context.subscriptions.push({ dispose: () => clearTimeout(budgetCheck) });
}
