// The one in-process figure of the index-scale benchmark: a turn's index write alone, as the
// session's writer does it at a turn's end (SessionIndex putSummary, then flush), timed inside a
// running process on a copy of the measured workspace. The only place the bench reaches into the
// index's API: the rest uses the CLI and the on-disk session format.
import { silentLogger } from '../../src/core/logger';
import { SessionStore } from '../../src/core/store/sessionStore';
import { median } from '../table';

/** The median ms of `reps` index writes of each session's row (its summary, stamped anew each time so it is a change). */
export async function indexWriteMs(root: string, wasmPath: string, workspaceKey: string, ids: readonly string[], reps: number): Promise<number[]> {
  const store = await SessionStore.open({ root, wasmPath, logger: silentLogger, workspaceKey, saveDelayMs: 0 });
  try {
    store.index.list({ workspaceKey, limit: 1 });
    return await Promise.all(
      ids.map(async (id) => {
        const summary = store.index.summaryOf(id);
        if (!summary) throw new Error(`the index of ${root} has no row for ${id}`);
        const figures: number[] = [];
        for (let i = 1; i <= reps; i++) {
          const start = process.hrtime.bigint();
          store.index.putSummary(id, { ...summary, stateMtime: summary.stateMtime + i });
          await store.index.flush();
          figures.push(Number(process.hrtime.bigint() - start) / 1e6);
        }
        return median(figures);
      }),
    );
  } finally {
    await store.close();
  }
}
