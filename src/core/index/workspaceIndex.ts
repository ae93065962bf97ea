import type { Logger } from '../logger';
import type { StoreLayout } from '../format/layout';
import type { SessionState, StoredState } from '../format/sessionState';
import { summarize, type SessionSummary } from '../format/summary';
import { IndexFile, IndexFileReplacedError, wholeFileProblem, type IndexBuild, type WholeFileCheck } from './indexFile';
import { folderChanges, readFolderSummary, rebuildRows, rebuildRowsNow, settleBuild, type FolderChanges, type FolderDrift } from './indexFolders';
import { IndexQueries } from './indexQueries';
import * as rows from './indexRows';
import { IndexSync, writeRow } from './indexSync';
import type { Database, SqlJsStatic } from './sqlite';
import type { PreparedDocument } from './turnSearch';
import { errorMessage } from '../errors';

export type IndexStatus = 'uninitialized' | 'preparing' | 'ready' | 'degraded';

export interface WorkspaceIndexOptions {
  readonly layout: StoreLayout;
  readonly workspaceKey: string;
  /** sql.js, loaded once by the store's index. */
  readonly SQL: SqlJsStatic;
  readonly logger: Logger;
  /** Wait this long after a change before writing it, to coalesce bursts. */
  readonly saveDelayMs?: number;
  /** Follow other processes' changes (off for one-shot CLI commands). */
  readonly watch?: boolean;
  /** Run the checks that read the whole file this long after opening (see SessionIndex). */
  readonly verifyAfterMs?: number;
  /** Called after the rows changed, by this process or (with `watch`) another. */
  readonly changed: () => void;
}

/**
 * Where this process's queries go: the shared file in place, or a database of this process's
 * alone (a build of a new file that queries are served from until it is installed, or, for a
 * newer schema's file, an in-memory database that is never written out).
 */
type Serving = { kind: 'file' } | { kind: 'own'; db: Database; build: IndexBuild | undefined };

/** The errors SQLite raises on a damaged file. Read-only: a damaged header byte; UNIQUE: a damaged id index (rows are upserted). */
const DAMAGE = /malformed|not a database|database corruption|readonly database|UNIQUE constraint failed|disk image/i;

/**
 * One workspace's index: its index.sqlite in the workspace's folder, used in place, which every
 * row of its sessions can be rebuilt from. A missing, corrupt or zero-byte file is rebuilt from
 * the workspace's session folders, and one from a newer schema is left alone (another window may
 * run a newer Braid) while this one serves from an in-memory rebuild (`degraded`).
 *
 * It composes the file (IndexFile: open in place, lock, checks, builds), this process's pending
 * changes (IndexSync) and the queries (IndexQueries); what it adds is the status, where queries
 * are served from, and the recovery from damage.
 */
export class WorkspaceIndex extends IndexQueries {
  private statusValue: IndexStatus = 'uninitialized';
  private readonly file: IndexFile;
  private readonly sync: IndexSync;
  private serving: Serving = { kind: 'file' };
  /** Set while damage is being recovered from: damage found again then is not recovered from twice. */
  private recovering = false;

  private constructor(private readonly options: WorkspaceIndexOptions) {
    super();
    this.file = new IndexFile(options.layout, options.workspaceKey, options.SQL, options.logger);
    this.sync = new IndexSync(this.file, options, {
      withDamageRecovery: (work) => this.withDamageRecovery(work),
      changedElsewhere: () => options.changed(),
    });
  }

  /** Opens the workspace's index, building it from the folders (yielding as it goes) when it must. */
  static async open(options: WorkspaceIndexOptions): Promise<WorkspaceIndex> {
    const index = new WorkspaceIndex(options);
    const opened = index.start();
    if (opened === 'newer') await rebuildRows(index.ownDb(), options.layout, options.workspaceKey, options.logger);
    if (opened === 'rebuild') await index.buildAndInstall();
    return index.started();
  }

  /**
   * A workspace's index built anew from its folders and installed, whatever file was there (a
   * damaged one kept aside), without building it a first time on opening: only a newer schema's
   * file is left alone, its rows served from memory.
   */
  static async rebuilt(options: WorkspaceIndexOptions, progress?: (done: number, total: number) => void): Promise<WorkspaceIndex> {
    const index = new WorkspaceIndex(options);
    if (index.start() === 'newer') await rebuildRows(index.ownDb(), options.layout, options.workspaceKey, options.logger, progress);
    else await index.buildAndInstall(progress);
    return index.started();
  }

  /** As `open`, without yielding: the rows are there when it returns (a build included). */
  static load(options: WorkspaceIndexOptions): WorkspaceIndex {
    const index = new WorkspaceIndex(options);
    const opened = index.start();
    if (opened === 'newer') rebuildRowsNow(index.ownDb(), options.layout, options.workspaceKey, options.logger);
    if (opened === 'rebuild') index.buildAndInstallNow();
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

  /** Opens the file; what it found decides whether the rows must be read from the folders. */
  private start(): 'ready' | 'newer' | 'rebuild' {
    const opened = this.file.open();
    if (opened.kind === 'ready') this.statusValue = 'ready';
    if (opened.kind === 'newer') {
      this.statusValue = 'degraded';
      this.serving = { kind: 'own', db: opened.db, build: undefined };
    }
    return opened.kind;
  }

  /** The database of this process's own that queries are served from (degraded, or a build). */
  private ownDb(): Database {
    if (this.serving.kind !== 'own') throw new Error('the index is served from its file');
    return this.serving.db;
  }

  private started(): WorkspaceIndex {
    if (this.options.watch && this.statusValue !== 'degraded') this.sync.watch();
    if (this.options.verifyAfterMs !== undefined) setTimeout(() => this.verify(), this.options.verifyAfterMs).unref();
    return this;
  }

  /**
   * Builds a new file from the folders, serving queries from it meanwhile, and installs it. What
   * other processes wrote to the old file while it was built is caught up with from the folders
   * as it is installed.
   */
  private async buildAndInstall(progress?: (done: number, total: number) => void): Promise<void> {
    const build = this.beginBuild();
    try {
      await rebuildRows(build.db, this.options.layout, this.workspaceKey, this.logger, progress);
      this.installBuild(build);
    } catch (err) {
      this.endBuild(build, false);
      throw err;
    }
    this.endBuild(build, true);
  }

  /** As buildAndInstall, at once: installed when it returns, and its failures throw here. */
  private buildAndInstallNow(): void {
    const build = this.beginBuild();
    try {
      rebuildRowsNow(build.db, this.options.layout, this.workspaceKey, this.logger);
      this.installBuild(build);
    } catch (err) {
      this.endBuild(build, false);
      throw err;
    }
    this.endBuild(build, true);
  }

  /** Installs a build, caught up with what other processes changed in the folders while it was built. */
  private installBuild(build: IndexBuild): void {
    this.file.install(build, (db, beat) => settleBuild(db, this.options.layout, this.workspaceKey, this.logger, beat));
  }

  private beginBuild(): IndexBuild {
    const build = this.file.startBuild();
    this.statusValue = 'preparing';
    this.serving = { kind: 'own', db: build.db, build };
    this.sync.hold(true);
    return build;
  }

  private endBuild(build: IndexBuild, installed: boolean): void {
    if (!installed) this.file.abandonBuild(build);
    this.serving = { kind: 'file' };
    this.statusValue = 'ready';
    this.sync.hold(false);
  }

  /**
   * Checks index.sqlite as it is on disk now (another process, or damage after this one opened
   * it): undefined when it opens and passes SQLite's integrity check, else what is wrong.
   */
  checkFile(): string | undefined {
    return this.file.check();
  }

  /** Rebuilds the rows from the session folders into a new index.sqlite, a damaged file kept as index.sqlite.corrupt. */
  async repairFile(): Promise<void> {
    if (this.file.hasContent()) this.file.keepCorruptCopy();
    await this.buildAndInstall();
    this.options.changed();
  }

  /**
   * The checks that read the whole index: SQLite's quick_check (every page; `rows`: only the
   * listed rows) and values no row may hold. Damage found moves the file aside and rebuilds the
   * rows from the folders at once. Returns whether it found damage.
   */
  verify(check: WholeFileCheck = 'pages'): boolean {
    if (this.sync.closed || this.statusValue !== 'ready' || this.serving.kind !== 'file') return false;
    let problem: string | undefined;
    try {
      problem = this.file.use((db) => wholeFileProblem(db, check));
    } catch (err) {
      if (!DAMAGE.test(errorMessage(err)) && !(err instanceof IndexFileReplacedError)) return false; // busy: checked another time
      problem = errorMessage(err);
    }
    if (!problem) return false;
    this.recoverFromDamage(`${this.file.name} is corrupt (${problem})`);
    return true;
  }

  /** Damage found after opening: the file goes aside and the rows are rebuilt from the folders before this returns. */
  private recoverFromDamage(what: string): void {
    if (this.recovering) throw new Error(`${what}, again while it was being rebuilt`);
    this.logger.warn(`${what}; rebuilding it from the session folders (the damaged file is kept as ${this.file.name}.corrupt)`);
    this.recovering = true;
    try {
      this.file.keepCorruptCopy();
      this.buildAndInstallNow();
    } finally {
      this.recovering = false;
    }
    this.options.changed();
  }

  /** Rebuilds every row from the session folders into a new file and installs it; queries go to the old one meanwhile. */
  async rebuildFromFolders(progress?: (done: number, total: number) => void): Promise<void> {
    if (this.serving.kind === 'own' && !this.serving.build) {
      // degraded: a new in-memory database, filled from the folders, in place of the old one
      const db = this.file.emptyDatabase();
      await rebuildRows(db, this.options.layout, this.workspaceKey, this.logger, progress);
      this.serving.db.close();
      this.serving = { kind: 'own', db, build: undefined };
      this.options.changed();
      return;
    }
    const build = this.file.startBuild();
    const previous = this.statusValue;
    this.statusValue = 'preparing';
    try {
      await rebuildRows(build.db, this.options.layout, this.workspaceKey, this.logger, progress);
      await this.sync.flush(); // what this process changed meanwhile goes to the old file; the install catches up with it
      this.installBuild(build);
    } catch (err) {
      this.file.abandonBuild(build);
      throw err;
    } finally {
      this.statusValue = previous === 'preparing' ? 'ready' : previous;
    }
    this.options.changed();
    await this.flush();
  }

  /** How the rows differ from the folders (state.json mtime, log size), changing nothing. */
  driftFromFolders(): FolderDrift {
    const { changed, removed } = this.changesFromFolders();
    const added = changed.filter((folder) => !folder.known).length;
    return { added, updated: changed.length - added, removed: removed.length };
  }

  private changesFromFolders(): FolderChanges {
    return this.read((db) => folderChanges(db, this.options.layout, this.workspaceKey));
  }

  /** Brings the rows in line with the folders: new folders added, changed ones re-read, rows without a folder removed. */
  async catchUpWithFolders(): Promise<FolderDrift> {
    const { changed, removed } = this.changesFromFolders();
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

  /** Records a session's current summary (and its turns' search documents, when made already); written soon after. */
  putSummary(id: string, summary: SessionSummary, documents?: readonly PreparedDocument[]): void {
    this.record(id, summary, documents);
  }

  /** Removes a session's row (its folder is gone); written soon after. */
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

  /** A session's row: a pending change of this process first, then the file's. */
  override get(id: string): rows.SessionRow | undefined {
    const pending = this.serving.kind === 'file' ? this.sync.pendingSummary(id) : undefined;
    if (pending === null) return undefined;
    if (pending) return rows.rowOfSummary(pending);
    return super.get(id);
  }

  /** What the index holds about a session, as a summary: a pending change of this process first. */
  override summaryOf(id: string): SessionSummary | undefined {
    const pending = this.serving.kind === 'file' ? this.sync.pendingSummary(id) : undefined;
    if (pending === null) return undefined;
    return pending ? rows.storedForm(pending) : super.summaryOf(id);
  }

  /** A session's state: a pending change of this process first. */
  override stateOf(id: string): SessionState | undefined {
    const pending = this.serving.kind === 'file' ? this.sync.pendingSummary(id) : undefined;
    if (pending === null) return undefined;
    return pending ? (JSON.parse(JSON.stringify(pending.state)) as SessionState) : super.stateOf(id);
  }

  protected sessionDir(workspaceKey: string, id: string): string {
    return this.options.layout.sessionDir(workspaceKey, id);
  }

  /** Writes a session's row (or deletes it: null): at once into a database of this process's own, else soon. */
  private record(id: string, summary: SessionSummary | null, documents?: readonly PreparedDocument[]): void {
    const serving = this.serving;
    if (serving.kind === 'own') {
      writeRow(serving.db, id, summary, this.options.layout, documents);
      if (!serving.build) return; // degraded: never written out
    }
    const removedFrom = summary ? '' : (this.get(id)?.workspaceKey ?? this.workspaceKey);
    this.sync.put(id, summary ? { summary, documents } : { removedFrom });
    this.sync.scheduleSave();
  }

  protected read<T>(query: (db: Database) => T): T {
    const serving = this.serving;
    if (serving.kind === 'own') return query(serving.db);
    return this.withDamageRecovery(() => this.sync.read(query));
  }

  /**
   * Runs `work` on the file. Damage SQLite meets only now (a page the check at opening did not
   * read, such as the search index's) moves the file aside and rebuilds the rows from the session
   * folders at once; `work` then runs on the rebuilt index.
   */
  private withDamageRecovery<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      const replaced = err instanceof IndexFileReplacedError;
      if (!replaced && !DAMAGE.test(errorMessage(err))) throw err;
      this.recoverFromDamage(replaced ? errorMessage(err) : `${this.file.name} is damaged (${errorMessage(err)})`);
      return work();
    }
  }

  /** Writes pending changes now. */
  flush(): Promise<void> {
    return this.sync.flush();
  }

  /** Writes what is pending, stops watching and closes the file. */
  close(): Promise<void> {
    return this.sync.close();
  }
}
