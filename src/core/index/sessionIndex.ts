import { EventEmitter } from 'node:events';
import type { Logger } from '../logger';
import type { StoreLayout } from '../format/layout';
import type { StoredState } from '../format/sessionState';
import { summarize, type SessionSummary } from '../format/summary';
import { IndexFile, wholeFileProblem } from './indexFile';
import { folderChanges, readFolderSummary, rebuildRows, type FolderDrift } from './indexFolders';
import { IndexQueries } from './indexQueries';
import { IndexSync } from './indexSync';
import type { Database } from './sqlite';
import { errorMessage } from '../errors';

export type { FolderDrift } from './indexFolders';

export type IndexStatus = 'uninitialized' | 'preparing' | 'ready' | 'degraded';

export interface SessionIndexOptions {
  readonly layout: StoreLayout;
  readonly wasmPath: string;
  readonly logger: Logger;
  /** Wait this long after a change before saving, to coalesce bursts. */
  readonly saveDelayMs?: number;
  /** Follow other processes' saves (off for one-shot CLI commands). */
  readonly watch?: boolean;
  /**
   * Run the checks that read the whole file (SQLite's quick_check, values no row may hold) this
   * long after opening, off the opening's path; a long-lived process (the extension) sets it.
   * One-shot commands leave them to `braid list --all` and `braid doctor`.
   */
  readonly verifyAfterMs?: number;
}

/**
 * The sql.js read model of the store (docs/reference.md, The index). Every row can be rebuilt from
 * disk, so a missing, corrupt or zero-byte index.sqlite is rebuilt, and one from a newer schema is
 * left alone (another window may run a newer Braid) while this one serves from an in-memory
 * rebuild (`degraded`).
 *
 * It composes the file (IndexFile: load, checks, lock, write), this process's copy and its
 * synchronisation with the file (IndexSync: pending changes, saves, reloads, watch) and the
 * queries (IndexQueries); what it adds is the status, change events and the recovery from damage.
 */
export class SessionIndex extends IndexQueries {
  private statusValue: IndexStatus = 'uninitialized';
  private readonly events = new EventEmitter();
  private readonly file: IndexFile;
  private readonly sync: IndexSync;

  private constructor(private readonly options: SessionIndexOptions) {
    super();
    this.file = new IndexFile(options.layout, options.wasmPath, options.logger);
    this.sync = new IndexSync(this.file, options, {
      mayWrite: () => this.statusValue !== 'degraded',
      withDamageRecovery: (work) => this.withDamageRecovery(work),
      reloaded: () => this.events.emit('change'),
    });
  }

  /** Opens the index: loads index.sqlite, or rebuilds it from disk when missing, corrupt or outdated. */
  static async open(options: SessionIndexOptions): Promise<SessionIndex> {
    const index = new SessionIndex(options);
    await index.load();
    if (options.watch) index.sync.watch();
    if (options.verifyAfterMs !== undefined) setTimeout(() => index.verify(), options.verifyAfterMs).unref();
    return index;
  }

  get status(): IndexStatus {
    return this.statusValue;
  }

  private get logger(): Logger {
    return this.options.logger;
  }

  /** Called after the index changed, by this process or (with `watch`) another. */
  onDidChange(listener: () => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  private setStatus(status: IndexStatus): void {
    this.statusValue = status;
    this.events.emit('status', status);
  }

  private async load(): Promise<void> {
    const opened = await this.file.open();
    this.sync.start(opened.db, opened.kind === 'ready' ? opened.generation : 0);
    if (opened.kind === 'ready') {
      this.setStatus('ready');
    } else if (opened.kind === 'newer') {
      this.setStatus('degraded');
      await rebuildRows(this.sync, this.options.layout, this.logger);
    } else {
      await this.rebuildFromFolders();
    }
  }

  /**
   * Checks index.sqlite as it is on disk now (another process, or damage after this one loaded
   * it): undefined when it loads and passes SQLite's integrity check, else what is wrong.
   */
  checkFile(): Promise<string | undefined> {
    return this.file.check();
  }

  /** Rebuilds the index from the session folders and rewrites index.sqlite, the damaged file kept as index.sqlite.corrupt. */
  async repairFile(): Promise<void> {
    if (this.file.hasContent()) this.file.keepCorruptCopy();
    this.sync.startOver(this.file.emptyDatabase()); // the copy in memory came from the damaged file
    await this.rebuildFromFolders();
  }

  /**
   * The checks that read the whole index (about 0.4 s at 100k sessions): SQLite's quick_check and
   * values no row may hold. Damage found moves the file aside and rebuilds the index from the
   * folders at once. Returns whether it found damage.
   */
  verify(): boolean {
    if (this.sync.closed || this.statusValue !== 'ready') return false;
    const problem = wholeFileProblem(this.sync.db);
    if (!problem) return false;
    this.recoverFromDamage(`index.sqlite is corrupt (${problem})`);
    return true;
  }

  /** Damage found after load: the file goes aside and the index is rebuilt from the folders before this returns. */
  private recoverFromDamage(what: string): void {
    this.logger.warn(`${what}; rebuilding it from the session folders (the damaged file is kept as index.sqlite.corrupt)`);
    this.file.keepCorruptCopy();
    this.sync.startOver(this.file.emptyDatabase());
    void rebuildRows(this.sync, this.options.layout, this.logger, undefined, Number.POSITIVE_INFINITY); // never awaits: done when it returns
    this.sync.scheduleSave();
    this.events.emit('change');
  }

  /** Rebuilds every row from the session folders and saves. Progress is called with (done, total). */
  async rebuildFromFolders(progress?: (done: number, total: number) => void): Promise<void> {
    this.setStatus('preparing');
    await rebuildRows(this.sync, this.options.layout, this.logger, progress);
    this.setStatus('ready');
    this.events.emit('change');
    await this.flush();
  }

  /**
   * How a workspace's rows (every workspace's when absent) differ from its folders (state.json
   * mtime, log size), changing nothing: what `catchUpWithFolders` would do.
   */
  driftFromFolders(workspaceKey?: string): FolderDrift {
    const { changed, removed } = folderChanges(this.sync.db, this.options.layout, workspaceKey);
    const added = changed.filter((folder) => !folder.known).length;
    return { added, updated: changed.length - added, removed: removed.length };
  }

  /**
   * Brings a workspace's rows (every workspace's when absent) in line with its folders: new
   * folders added, changed ones re-read, rows without a folder removed. Returns what changed.
   */
  async catchUpWithFolders(workspaceKey?: string): Promise<FolderDrift> {
    const { changed, removed } = folderChanges(this.sync.db, this.options.layout, workspaceKey);
    const result: FolderDrift = { added: 0, updated: 0, removed: removed.length };
    let n = 0;
    for (const folder of changed) {
      const summary = readFolderSummary(folder.dir, this.logger);
      if (!summary) continue;
      this.record(summary.state.id, summary);
      if (folder.known) result.updated++;
      else result.added++;
      if (++n % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    for (const id of removed) this.record(id, null);
    if (result.added + result.updated + result.removed > 0) {
      this.logger.info(
        `index reconciled${workspaceKey ? ` for ${workspaceKey}` : ''}: ${result.added} added, ${result.updated} updated, ${result.removed} removed`,
      );
      this.events.emit('change');
    }
    return result;
  }

  /** Records a session's current summary and tells listeners; saved soon after. */
  putSummary(id: string, summary: SessionSummary): void {
    this.record(id, summary);
    this.events.emit('change');
  }

  /** Removes a session's row (its folder is gone) and tells listeners; saved soon after. */
  removeSession(id: string): void {
    this.record(id, null);
    this.events.emit('change');
  }

  /** Replaces only the state of a session the index knows (a rename, an archive): no log scan. */
  updateState(state: StoredState, stateMtime: number, dir: string): void {
    const summary = this.summaryOf(state.id);
    if (!summary) {
      this.rereadFolder(dir);
      return;
    }
    this.putSummary(state.id, summarize(state, summary.fold, summary.state.agents, summary.logBytes, stateMtime));
  }

  /** Re-reads one session folder into the index; undefined (and the index unchanged) when it cannot be read. */
  rereadFolder(dir: string): SessionSummary | undefined {
    const summary = readFolderSummary(dir, this.logger);
    if (summary) this.putSummary(summary.state.id, summary);
    return summary;
  }

  /** Writes a session's row (or deletes it: null); the next save, scheduled now, carries it. */
  private record(id: string, summary: SessionSummary | null): void {
    this.withDamageRecovery(() => {
      if (summary) this.sync.putRow(id, summary);
      else this.sync.removeRow(id);
    });
    this.sync.scheduleSave();
  }

  protected read<T>(query: (db: Database) => T): T {
    return this.withDamageRecovery(() => query(this.sync.db));
  }

  /**
   * Runs `work` on the database. Damage SQLite meets only now (a page the check at load did not
   * read, such as the search index's) moves the file aside and rebuilds the index from the session
   * folders at once; `work` then runs on the rebuilt index.
   */
  private withDamageRecovery<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      if (!/malformed|not a database|database corruption|readonly database|UNIQUE constraint failed/i.test(errorMessage(err))) throw err; // read-only: a damaged header byte; UNIQUE: a damaged id index (rows are upserted)
      this.recoverFromDamage(`index.sqlite is damaged (${errorMessage(err)})`);
      return work();
    }
  }

  /** Saves pending changes now (waits for a save in progress first). */
  flush(): Promise<void> {
    return this.sync.flush();
  }

  /** Saves what is pending, stops watching and frees the database. */
  async close(): Promise<void> {
    await this.sync.close();
    this.events.removeAllListeners();
  }
}
