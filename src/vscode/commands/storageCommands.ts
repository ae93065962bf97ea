import type { StorageDocuments } from '../storage/storageView';
import { REVIEW_STORAGE_COMMAND, SHOW_STORAGE_COMMAND } from '../storage/storageView';
import type { BraidCommand } from '../braidCommand';
import type { CommandContext } from './commandContext';

/**
 * Braid: Show Storage (the storage report, a read-only document) and Review Removable Storage…
 * (what gc would remove, removed only after a modal confirmation). The documents exist while the
 * store does; without it, each says the store could not be opened.
 */
export function storageCommands(ctx: CommandContext, documents: StorageDocuments | undefined): BraidCommand[] {
  const docs = () => {
    ctx.requireStore();
    return documents!;
  };
  return [
    { id: SHOW_STORAGE_COMMAND, failure: 'Braid could not measure its storage', run: () => docs().showReport() },
    { id: REVIEW_STORAGE_COMMAND, failure: 'Braid could not review its storage', run: () => docs().review(ctx.logger) },
  ];
}
