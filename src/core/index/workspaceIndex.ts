import type { Logger } from '../logger';
import type { StoreLayout } from '../format/layout';
import type { StoredState } from '../format/sessionState';
import { summarize, type SessionSummary } from '../format/summary';
import { IndexFile, wholeFileProblem } from './indexFile';
import { folderChanges, readFolderSummary, rebuildRows, type FolderDrift } from './indexFolders';
import { IndexQueries } from './indexQueries';
import { IndexSync } from './indexSync';
import type { Database, SqlJsStatic } from './sqlite';
import { errorMessage } from '../errors';

export type IndexStatus = 'uninitialized' | 'preparing' | 'ready' | 'degraded';

export interface WorkspaceIndexOptions {
  readonly layout: StoreLayout;
  readonly workspaceKey: string;
  /** sql.js, loaded once by the store's index. */
  readonly SQL: SqlJsStatic;
  readonly logger: Logger;
  /** Wait this long after a change before saving, to coalesce bursts. */
  readonly saveDelayMs?: number;
  /** Follow other processes' saves (off for one-shot CLI commands). */
  readonly watch?: boolean;
  /** Run the checks that read the whole file this long after loading (see SessionIndex). */
  readonly verifyAfterMs?: number;
  /** Called after the rows changed, by this process or (with `watch`) another. */
  readonly changed: () => void;
}

/**
 * One workspace's index: its index.sqlite in the workspace's folder, which every row of its
 * sessions can be rebuilt from. A missing, corrupt or zero-byte file is rebuilt from the
 * workspace's session folders, and one from a newer schema is left alone (another window may run
 * a newer Braid) while this one serves from an in-memory rebuild (`degraded`).
 *
 * It composes the file (IndexFile: load, checks, lock, write), this process's copy and its
 * synchronisation with the file (IndexSync: pending changes, saves, reloads, watch) and the
 * queries (IndexQueries); what it adds is the status and the recovery from damage.
 */
export class WorkspaceIndex extends IndexQueries {
  private statusValue: IndexStatus = 'uninitialized';
  private readonly file: IndexFile;
  private readonly sync: IndexSync;

  private constructor(private readonly options: WorkspaceIndexOptions) {
    super();
    this.file = new IndexFile(options.layout, options.workspaceKey, options.SQL, options.logger);
    this.sync = new IndexSync(this.file, options, {
      mayWrite: () => this.statusValue !== 'degraded',
      withDamageRecovery: (work) => this.withDamageRecovery(work),
      reloaded: () => options.changed(),
    });
  }

  /** Loads the workspace's index, rebuilding it from the folders (yielding as it goes) when it must. */
  static async open(options: WorkspaceIndexOptions): Promise<WorkspaceIndex> {
    const index = new WorkspaceIndex(options);
    const opened = index.start();
    if (opened !== 'ready') await index.fill(opened, 200);
    return index.started();
  }

  /**
   * A workspace whose index file is missing, rebuilt from its folders at once (without the load
   * that would find no file and rebuild it a first time) and saved.
   */
  static async rebuildMissing(options: WorkspaceIndexOptions, progress?: (done: number, total: number) => void): Promise<WorkspaceIndex> {
    const index = new WorkspaceIndex(options);
    index.sync.start(index.file.emptyDatabase(), 0);
    await index.rebuildFromFolders(progress);
    return index.started();
  }

  /** As `open`, without yielding: the rows are there when it returns (a rebuild included). */
  static load(options: WorkspaceIndexOptions): WorkspaceIndex {
    const index = new WorkspaceIndex(options);
    const opened = index.start();
    if (opened !== 'ready') void index.fill(opened, Number.POSITIVE_INFINITY); // never awaits: done when it returns
    return index.started();
  }

  get status(): IndexStatus {
    return this.statusValue;
  }

  get workspaceKey(): string {
    return this.options.workspaceKey;
  }

  private get logger(): Logger {
    return this.options.logger;
  }

  /** Loads the file; what it found decides whether the rows must be read from the folders. */
  private start(): 'ready' | 'newer' | 'rebuild' {
    const opened = this.file.open();
    this.sync.start(opened.db, opened.kind === 'ready' ? opened.generation : 0);
    if (opened.kind === 'ready') this.statusValue = 'ready';
    return opened.kind;
  }

  /** Reads the rows from the folders: into memory only for a newer schema's file, else saved too. */
  private async fill(opened: 'newer' | 'rebuild', yieldEvery: number): Promise<void> {
    if (opened === 'newer') {
      this.statusValue = 'degraded';
      await rebuildRows(this.sync, this.options.layout, this.workspaceKey, this.logger, undefined, yieldEvery);
      return;
    }
    this.statusValue = 'preparing';
    await rebuildRows(this.sync, this.options.layout, this.workspaceKey, this.logger, undefined, yieldEvery);
    this.statusValue = 'ready';
    this.sync.scheduleSave();
  }

  private started(): WorkspaceIndex {
    if (this.options.watch) this.sync.watch();
    if (this.options.verifyAfterMs !== undefined) setTimeout(() => this.verify(), this.options.verifyAfterMs).unref();
    return this;
  }

  /**
   * Checks index.sqlite as it is on disk now (another process, or damage after this one loaded
   * it): undefined when it loads and passes SQLite's integrity check, else what is wrong.
   */
  checkFile(): string | undefined {
    return this.file.check();
  }

  /** Rebuilds the rows from the session folders and rewrites index.sqlite, a damaged file kept as index.sqlite.corrupt. */
  async repairFile(): Promise<void> {
    if (this.file.hasContent()) this.file.keepCorruptCopy();
    this.sync.startOver(this.file.emptyDatabase()); // the copy in memory came from the damaged file
    await this.rebuildFromFolders();
  }

  /**
   * The checks that read the whole index: SQLite's quick_check and values no row may hold. Damage
   * found moves the file aside and rebuilds the rows from the folders at once. Returns whether it
   * found damage.
   */
  verify(): boolean {
    if (this.sync.closed || this.statusValue !== 'ready') return false;
    const problem = wholeFileProblem(this.sync.db);
    if (!problem) return false;
    this.recoverFromDamage(`${this.file.name} is corrupt (${problem})`);
    return true;
  }

  /** Damage found after load: the file goes aside and the rows are rebuilt from the folders before this returns. */
  private recoverFromDamage(what: string): void {
    this.logger.warn(`${what}; rebuilding it from the session folders (the damaged file is kept as ${this.file.name}.corrupt)`);
    this.file.keepCorruptCopy();
    this.sync.startOver(this.file.emptyDatabase());
    void rebuildRows(this.sync, this.options.layout, this.workspaceKey, this.logger, undefined, Number.POSITIVE_INFINITY); // never awaits
    this.sync.scheduleSave();
    this.options.changed();
  }

  /** Rebuilds every row from the session folders and saves. Progress is called with (done, total). */
  async rebuildFromFolders(progress?: (done: number, total: number) => void): Promise<void> {
    this.statusValue = 'preparing';
    await rebuildRows(this.sync, this.options.layout, this.workspaceKey, this.logger, progress);
    this.statusValue = 'ready';
    this.options.changed();
    await this.flush();
  }

  /** How the rows differ from the folders (state.json mtime, log size), changing nothing. */
  driftFromFolders(): FolderDrift {
    const { changed, removed } = folderChanges(this.sync.db, this.options.layout, this.workspaceKey);
    const added = changed.filter((folder) => !folder.known).length;
    return { added, updated: changed.length - added, removed: removed.length };
  }

  /** Brings the rows in line with the folders: new folders added, changed ones re-read, rows without a folder removed. */
  async catchUpWithFolders(): Promise<FolderDrift> {
    const { changed, removed } = folderChanges(this.sync.db, this.options.layout, this.workspaceKey);
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
      this.logger.info(`index of ${this.workspaceKey} reconciled: ${result.added} added, ${result.updated} updated, ${result.removed} removed`);
      this.options.changed();
    }
    return result;
  }

  /** Records a session's current summary; saved soon after. */
  putSummary(id: string, summary: SessionSummary): void {
    this.record(id, summary);
  }

  /** Removes a session's row (its folder is gone); saved soon after. */
  removeSession(id: string): void {
    this.record(id, null);
  }

  /** Replaces only the state of a session the index knows (a rename, an archive): no log scan. */
  updateState(state: StoredState, stateMtime: number, dir: string): void {
    const summary = this.summaryOf(state.id);
    if (!summary) {
      const read = readFolderSummary(dir, this.logger);
      if (read) this.record(read.state.id, read);
      return;
    }
    this.record(state.id, summarize(state, summary.fold, summary.state.agents, summary.logBytes, stateMtime));
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
   * read, such as the search index's) moves the file aside and rebuilds the rows from the session
   * folders at once; `work` then runs on the rebuilt index.
   */
  private withDamageRecovery<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      if (!/malformed|not a database|database corruption|readonly database|UNIQUE constraint failed/i.test(errorMessage(err))) throw err; // read-only: a damaged header byte; UNIQUE: a damaged id index (rows are upserted)
      this.recoverFromDamage(`${this.file.name} is damaged (${errorMessage(err)})`);
      return work();
    }
  }

  /** Saves pending changes now (waits for a save in progress first). */
  flush(): Promise<void> {
    return this.sync.flush();
  }

  /** Saves what is pending, stops watching and frees the database. */
  close(): Promise<void> {
    return this.sync.close();
  }
}
