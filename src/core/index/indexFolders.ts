import fs from 'node:fs';
import { statMtime, statSize } from '../fs/probe';
import { duration, type Logger } from '../logger';
import { listedFolderFiles, listSessionFolders, sessionFolderLayout, type StoreLayout } from '../format/layout';
import { logProblem, readSessionSummary, type SessionSummary } from '../format/summary';
import * as rows from './indexRows';
import type { Database } from './sqlite';
import { errorMessage } from '../errors';
import { keepFold } from '../format/foldFile';
import { counted } from '../counted';

/** How the index differs from the session folders, or how catching up changed it. */
export interface FolderDrift {
  added: number;
  updated: number;
  removed: number;
}

/**
 * Reads one session folder's summary for the index, logging what is wrong with it; undefined when
 * it cannot be read, or went away while it was read (another process deleted the session: its
 * state.json was missing because the folder was, which is no damage to report).
 */
export function readFolderSummary(dir: string, logger: Logger): SessionSummary | undefined {
  try {
    const reading = readSessionSummary(dir);
    if (reading.stateProblem && !fs.existsSync(dir)) return undefined;
    if (reading.stateProblem) logger.warn(`${dir}: ${reading.stateProblem}; its state was rebuilt from the log`);
    if (reading.report.tornTail) logger.info(`${dir}: the log ends with a torn line (ignored)`);
    const problem = logProblem(reading.report);
    if (problem) logger.warn(`${dir}: ${problem}`);
    keepFold(dir, reading.summary.fold, reading.summary.logBytes);
    return reading.summary;
  } catch (err) {
    logger.warn(`${dir}: cannot be read (${errorMessage(err)}); left out of the index`);
    return undefined;
  }
}

/**
 * Fills `db`, a new index of a workspace, from every session folder of the workspace, awaiting
 * every `yieldEvery` folders so that the process stays responsive (`db` is this process's alone
 * meanwhile: a build). Progress is called with (done, total).
 */
export async function rebuildRows(
  db: Database,
  layout: StoreLayout,
  workspaceKey: string,
  logger: Logger,
  progress?: (done: number, total: number) => void,
  yieldEvery = 200,
): Promise<void> {
  const fill = new FolderFill(db, layout, workspaceKey, logger);
  while (fill.next(yieldEvery)) {
    progress?.(fill.done, fill.total);
    await new Promise((resolve) => setImmediate(resolve));
  }
  fill.finish();
  progress?.(fill.total, fill.total);
}

/** As {@link rebuildRows}, at once: the rows are in `db` when it returns, and its failures throw here. */
export function rebuildRowsNow(db: Database, layout: StoreLayout, workspaceKey: string, logger: Logger): void {
  const fill = new FolderFill(db, layout, workspaceKey, logger);
  while (fill.next(Number.POSITIVE_INFINITY));
  fill.finish();
}

/** Reading a workspace's session folders into a new index, a few at a time, in one transaction. */
class FolderFill {
  private readonly folders: ReturnType<typeof listSessionFolders>;
  private readonly ids = new Set<string>();
  private readonly started = Date.now();
  done = 0;

  constructor(
    private readonly db: Database,
    layout: StoreLayout,
    private readonly workspaceKey: string,
    private readonly logger: Logger,
  ) {
    this.folders = listSessionFolders(layout, workspaceKey);
    db.run('BEGIN');
  }

  get total(): number {
    return this.folders.length;
  }

  /** Reads up to `count` more folders; whether any are left. */
  next(count: number): boolean {
    const stop = Math.min(this.folders.length, this.done + count);
    for (; this.done < stop; this.done++) {
      const { dir } = this.folders[this.done]!;
      const summary = readFolderSummary(dir, this.logger);
      if (summary && !this.ids.has(summary.state.id)) {
        this.ids.add(summary.state.id);
        rows.upsertSummary(this.db, summary, sessionFolderLayout.agentLog(dir));
      }
    }
    return this.done < this.folders.length;
  }

  finish(): void {
    this.db.run('COMMIT');
    if (this.folders.length > 0)
      this.logger.info(
        `index of ${this.workspaceKey} rebuilt from ${counted(this.folders.length, 'session folder')} in ${duration(Date.now() - this.started)}`,
      );
  }
}

/**
 * Brings a build (a new index filled from the folders) up to date with the folders as they are
 * now: the folders made, changed or removed since it read them are read again, in one transaction.
 * `beat` is called for each folder read (the caller may hold index.lock meanwhile).
 */
export function settleBuild(db: Database, layout: StoreLayout, workspaceKey: string, logger: Logger, beat: () => void): void {
  const { changed, removed } = folderChanges(db, layout, workspaceKey);
  if (changed.length === 0 && removed.length === 0) return;
  db.run('BEGIN');
  for (const folder of changed) {
    beat();
    const summary = readFolderSummary(folder.dir, logger);
    if (summary) rows.upsertSummary(db, summary, sessionFolderLayout.agentLog(folder.dir));
  }
  for (const id of removed) rows.deleteSessionRow(db, id);
  db.run('COMMIT');
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
    if (before && sameFingerprint(folder.dir, before)) continue;
    changed.push({ dir: folder.dir, known: before !== undefined });
  }
  return { changed, removed: [...known.keys()].filter((id) => !seen.has(id)) };
}

/** Whether a listed session folder's state.json mtime and main log size are the ones a row recorded. */
function sameFingerprint(dir: string, row: { stateMtime: number; logBytes: number }): boolean {
  const files = listedFolderFiles(dir);
  return row.stateMtime === (statMtime(files.state) ?? 0) && row.logBytes === statSize(files.mainLog);
}
