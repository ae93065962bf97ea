import { statMtime, statSize } from '../fs/probe';
import { duration, type Logger } from '../logger';
import { listSessionFolders, type StoreLayout } from '../format/layout';
import { logProblem, readSessionFolder, type SessionSummary } from '../format/summary';
import * as rows from './indexRows';
import type { Database } from './sqlite';
import { errorMessage } from '../errors';
import { counted } from '../counted';

/** Where rows read from the folders go: this process's database, each change remembered for the next save. */
export interface RowWriter {
  readonly db: Database;
  putRow(id: string, summary: SessionSummary): void;
  removeRow(id: string): void;
  /** Opens a transaction that may span awaits: no save runs until it ends. */
  begin(): void;
  /** Ends the transaction (`commit` false: rolls it back). */
  end(commit: boolean): void;
}

/** How the index differs from the session folders, or how catching up changed it. */
export interface FolderDrift {
  added: number;
  updated: number;
  removed: number;
}

/** Reads one session folder's summary for the index, logging what is wrong with it; undefined when it cannot be read. */
export function readFolderSummary(dir: string, logger: Logger): SessionSummary | undefined {
  try {
    const reading = readSessionFolder(dir);
    if (reading.stateProblem) logger.warn(`${dir}: ${reading.stateProblem}; its state was rebuilt from the log`);
    if (reading.report.tornTail) logger.info(`${dir}: the log ends with a torn line (ignored)`);
    const problem = logProblem(reading.report);
    if (problem) logger.warn(`${dir}: ${problem}`);
    return reading.summary;
  } catch (err) {
    logger.warn(`${dir}: cannot be read (${errorMessage(err)}); left out of the index`);
    return undefined;
  }
}

/**
 * Reads every session folder of a workspace into `target` in one transaction and removes the rows
 * without a folder. Progress is called with (done, total). With `yieldEvery` infinite it never
 * awaits, so it runs to the end before returning.
 */
export async function rebuildRows(
  target: RowWriter,
  layout: StoreLayout,
  workspaceKey: string,
  logger: Logger,
  progress?: (done: number, total: number) => void,
  yieldEvery = 200,
): Promise<void> {
  const started = Date.now();
  const folders = listSessionFolders(layout, workspaceKey);
  const ids = new Set<string>();
  let done = 0;
  target.begin();
  try {
    for (const folder of folders) {
      const summary = readFolderSummary(folder.dir, logger);
      if (summary && !ids.has(summary.state.id)) {
        ids.add(summary.state.id);
        target.putRow(summary.state.id, summary);
      }
      if (++done % yieldEvery === 0) {
        progress?.(done, folders.length);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    for (const id of rows.fingerprints(target.db).keys()) {
      if (!ids.has(id)) target.removeRow(id);
    }
    target.end(true);
  } catch (err) {
    target.end(false);
    throw err;
  }
  progress?.(folders.length, folders.length);
  if (folders.length > 0)
    logger.info(`index of ${workspaceKey} rebuilt from ${counted(folders.length, 'session folder')} in ${duration(Date.now() - started)}`);
}

/** The folders whose rows are missing (`known` false) or out of date, and the rows without a folder. */
export interface FolderChanges {
  changed: Array<{ dir: string; known: boolean }>;
  removed: string[];
}

/**
 * Compares a workspace's rows (every workspace's when absent) with its folders: a row is out of
 * date when its state.json mtime or log size differs.
 */
export function folderChanges(db: Database, layout: StoreLayout, workspaceKey?: string): FolderChanges {
  const known = rows.fingerprints(db, workspaceKey);
  const folders = workspaceKey ? listSessionFolders(layout, workspaceKey) : listSessionFolders(layout);
  const seen = new Set<string>();
  const changed: FolderChanges['changed'] = [];
  for (const folder of folders) {
    seen.add(folder.id);
    const before = known.get(folder.id);
    if (before && before.stateMtime === (statMtime(layout.stateFile(folder.dir)) ?? 0) && before.logBytes === statSize(layout.agentLog(folder.dir))) continue;
    changed.push({ dir: folder.dir, known: before !== undefined });
  }
  return { changed, removed: [...known.keys()].filter((id) => !seen.has(id)) };
}
