import fs from 'node:fs';
import { statMtime, statSize } from '../fs/probe';
import { LockTimeoutError, type FileLock } from '../fs/fileLock';
import type { Logger } from '../logger';
import type { StoreLayout } from '../format/layout';
import { readState } from '../format/sessionState';
import { summarize, type SessionSummary } from '../format/summary';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import type { IndexFile } from './indexFile';
import { readFolderSummary, type RowWriter } from './indexFolders';
import * as rows from './indexRows';
import type { Database } from './sqlite';
import { errorMessage } from '../errors';

/** A change not saved yet: `true` (the row in this process's database is the change) or the workspace of a removed session. */
type PendingChange = true | { removedFrom: string };

/** What the synchronisation asks of the index it serves. */
export interface SyncHooks {
  /** False while degraded: this process must not write the file. */
  mayWrite(): boolean;
  /** Runs `work` on the database; damage SQLite reports rebuilds it from the folders, then `work` runs again. */
  withDamageRecovery<T>(work: () => T): T;
  /** Another process's save was loaded. */
  reloaded(): void;
}

export interface SyncOptions {
  readonly layout: StoreLayout;
  /** The workspace whose index.sqlite this is. */
  readonly workspaceKey: string;
  readonly logger: Logger;
  /** Wait this long after a change before saving, to coalesce bursts. */
  readonly saveDelayMs?: number;
}

/**
 * This process's in-memory copy of the index and its synchronisation with index.sqlite, which
 * several processes share. A change updates the copy at once and is remembered as pending. A
 * save takes the cross-process lock, reloads the file if another process saved a newer
 * generation (carried in `PRAGMA user_version`, readable from the header), brings each pending
 * change up to date with disk and re-applies it, writes the next generation, and releases. A
 * watcher reloads on others' saves.
 */
export class IndexSync implements RowWriter {
  private database!: Database;
  private generation = 0;
  private readonly pending = new Map<string, PendingChange>();
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private watcher: fs.FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private closedValue = false;
  /** The file on disk is damaged: the next flush writes it even with nothing pending. */
  private mustWrite = false;
  /** A rebuild's transaction is open (it spans awaits): sql.js cannot export until it ends. */
  private transactionOpen = false;

  constructor(
    private readonly file: IndexFile,
    private readonly options: SyncOptions,
    private readonly hooks: SyncHooks,
  ) {}

  /** The database this process serves from (replaced by reloads and rebuilds). */
  get db(): Database {
    return this.database;
  }

  /** Whether `close` ran: nothing is saved or reloaded any more. */
  get closed(): boolean {
    return this.closedValue;
  }

  /** Serves from `db`, loaded from the file at `generation` (0: not from the file). */
  start(db: Database, generation: number): void {
    this.database = db;
    this.generation = generation;
  }

  /** Replaces the database (it came from a damaged file) with `empty`; the next save writes the file. */
  startOver(empty: Database): void {
    try {
      this.database.close();
    } catch {
      // it is being replaced
    }
    this.database = empty;
    this.mustWrite = true;
  }

  /** Writes a session's row; the next save carries it. */
  putRow(id: string, summary: SessionSummary): void {
    rows.upsertSummary(this.database, summary);
    this.pending.set(id, true);
  }

  /** Deletes a session's row; the next save carries the removal. */
  removeRow(id: string): void {
    const workspaceKey = rows.getRow(this.database, id)?.workspaceKey ?? '';
    rows.deleteSessionRow(this.database, id);
    this.pending.set(id, { removedFrom: workspaceKey });
  }

  begin(): void {
    this.database.run('BEGIN');
    this.transactionOpen = true;
  }

  end(commit: boolean): void {
    this.database.run(commit ? 'COMMIT' : 'ROLLBACK');
    this.transactionOpen = false;
  }

  /** Saves soon (after `saveDelayMs`, 100 ms by default), once for a burst of changes. */
  scheduleSave(): void {
    if (this.closedValue || !this.hooks.mayWrite() || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.flush().catch((err: unknown) => this.options.logger.error(`saving the session index failed: ${errorMessage(err)}`));
    }, this.options.saveDelayMs ?? 100);
  }

  /** Saves pending changes now (waits for a save in progress first). */
  async flush(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    while (this.saving) await this.saving;
    if ((this.pending.size === 0 && !this.mustWrite) || !this.hooks.mayWrite()) return;
    if (this.transactionOpen) return this.scheduleSave(); // the rebuild that holds it saves when it is done
    this.saving = this.save().finally(() => {
      this.saving = undefined;
    });
    await this.saving;
  }

  private async save(): Promise<void> {
    let lock: FileLock;
    try {
      lock = await this.file.lock();
    } catch (err) {
      if (err instanceof LockTimeoutError) {
        this.options.logger.warn(`could not save the session index: ${err.message}; will retry`);
        this.scheduleSave();
        return;
      }
      throw err;
    }
    try {
      const onDisk = this.file.generationOnDisk();
      // A damaged file's header may claim any generation: only one that loaded counts.
      if (onDisk > this.generation && this.reloadFromDisk()) this.generation = Math.max(this.generation, onDisk);
      const applying = new Map(this.pending);
      this.hooks.withDamageRecovery(() => {
        for (const [id, change] of applying) writeRow(this.database, id, this.latestFromDisk(id, change));
      });
      this.generation += 1;
      this.file.write(this.database, this.generation);
      for (const [id, change] of applying) if (this.pending.get(id) === change) this.pending.delete(id);
      this.mustWrite = false;
    } finally {
      lock.release();
    }
  }

  /** Loads the file another process saved, then re-applies this process's unsaved changes. */
  private reloadFromDisk(): boolean {
    const saved = this.file.openSaved();
    if (!saved) return false;
    for (const [id, change] of this.pending) writeRow(saved.db, id, change === true ? (rows.readSummary(this.database, id) ?? null) : null);
    this.database.close();
    this.database = saved.db;
    this.generation = saved.generation;
    return true;
  }

  /**
   * Brings a pending change up to date with disk before it is saved: another process may have
   * changed the same session's state.json since (both write state under the session's lock, so
   * the file has every change; the last index save must carry it), or removed or restored it.
   * Null: the session is gone.
   */
  private latestFromDisk(id: string, change: PendingChange): SessionSummary | null {
    const { layout, logger } = this.options;
    if (change !== true) {
      if (!isWorkspaceKey(change.removedFrom)) return null;
      const dir = layout.sessionDir(change.removedFrom, id);
      return fs.existsSync(dir) ? (readFolderSummary(dir, logger) ?? null) : null;
    }
    const current = rows.readSummary(this.database, id);
    if (!current) return null;
    return this.withLatestState(current);
  }

  /** `indexed` with the session's state as disk has it now (its folder re-read when its log grew). */
  private withLatestState(indexed: SessionSummary): SessionSummary | null {
    const { layout, logger } = this.options;
    const dir = layout.sessionDir(indexed.state.workspaceKey, indexed.state.id);
    const stateFile = layout.stateFile(dir);
    const mtime = statMtime(stateFile);
    if (mtime === undefined && !fs.existsSync(dir)) return null;
    // Another process appended to the log: counts and previews must be read again.
    if (statSize(layout.agentLog(dir)) !== indexed.logBytes) return readFolderSummary(dir, logger) ?? indexed;
    // state.json is read again whatever its mtime says (two writes within one clock tick share
    // one): it has every process's changes, since all write it under the session's lock.
    try {
      return summarize(readState(stateFile), indexed.fold, indexed.state.agents, indexed.logBytes, mtime ?? 0);
    } catch {
      return indexed;
    }
  }

  /** Reloads when another process saved: on file events in the workspace's folder, and by a 1 s poll. */
  watch(): void {
    const { layout, logger, workspaceKey } = this.options;
    const folder = layout.workspaceDir(workspaceKey);
    const check = () => {
      if (this.closedValue || this.saving) return;
      if (this.file.generationOnDisk() <= this.generation) return;
      this.saving = Promise.resolve()
        .then(() => this.reloadFromDisk())
        .then(
          (changed) => {
            if (changed) this.hooks.reloaded();
          },
          (err: unknown) => logger.warn(`reloading the session index failed: ${errorMessage(err)}`),
        )
        .finally(() => {
          this.saving = undefined;
        });
    };
    try {
      fs.mkdirSync(folder, { recursive: true });
      this.watcher = fs.watch(folder, (_event, name) => {
        if (name === 'index.sqlite') setTimeout(check, 20);
      });
      this.watcher.on('error', () => undefined);
    } catch (err) {
      logger.warn(`cannot watch ${folder} (${errorMessage(err)}); polling instead`);
    }
    // A poll as well: file watching is unreliable on network and some container file systems.
    this.pollTimer = setInterval(check, 1000);
    this.pollTimer.unref();
  }

  /** Saves what is pending, stops watching and frees the database. */
  async close(): Promise<void> {
    if (this.closedValue) return;
    await this.flush();
    this.closedValue = true;
    this.watcher?.close();
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.database.close();
  }
}

/** Writes a session's row into `db`, or deletes it (null). */
function writeRow(db: Database, id: string, summary: SessionSummary | null): void {
  if (summary) rows.upsertSummary(db, summary);
  else rows.deleteSessionRow(db, id);
}
