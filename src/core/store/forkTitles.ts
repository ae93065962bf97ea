import { sessionLabel } from '../format/titles';
import type { StoreContext } from './storeContext';

/** The longest chain of forks whose titles a new fork's is told apart from. */
const CHAIN_MAX = 50;

/**
 * The titles a new fork of `sourceId` must not take: those of the forks of the source and of
 * each session up its chain of forks, and of those sessions themselves. A fork of a fork names
 * the chain's first session (forkTitle), so it is told apart from all of them.
 */
export function chainTitles(store: StoreContext, workspaceKey: string, sourceId: string): Set<string> {
  const taken = new Set<string>();
  let id: string | undefined = sourceId;
  for (let depth = 0; id && depth < CHAIN_MAX; depth++) {
    for (const title of store.index.forkTitles(workspaceKey, id)) taken.add(title);
    const row = store.index.get(id);
    if (row && id !== sourceId) taken.add(sessionLabel(row));
    id = row?.forkedFrom?.sessionId;
  }
  return taken;
}
