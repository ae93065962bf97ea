import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { statMtime, statSize } from '../fs/probe';
import { writeFileAtomic } from '../fs/atomic';
import { FileLock, LockTimeoutError } from '../fs/fileLock';
import { duration, type Logger } from '../logger';
import { listSessionFolders, StoreLayout } from '../format/layout';
import { readState, type StoredState } from '../format/sessionState';
import { logProblem, readSessionFolder, summarize, type SessionSummary } from '../format/summary';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import * as rows from './indexRows';
import { createSchema, schemaVersionOf, SCHEMA_VERSION } from './schema';
import { sessionUsage, usageReport, type SessionUsage, type UsageReport } from './usageRows';
import { loadSqlJs, queryAll, readHeaderUserVersion, type Database, type SqlJsStatic } from './sqlite';
import { counted } from '../counted';

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

/** How a reconcile changed the index. */
export interface ReconcileResult {
  added: number;
  updated: number;
  removed: number;
}

const LOCK = { staleMs: 15_000, timeoutMs: 20_000 };

/**
 * The sql.js read model of the store (docs/reference.md, The index). Every row can be rebuilt from disk, so a
 * missing, corrupt or zero-byte index.sqlite is rebuilt, and one from a newer schema is left
 * alone (another window may run a newer Braid) while this one serves from an in-memory rebuild
 * (`degraded`).
 *
 * Several processes share the file, each with its own in-memory copy. A save takes the
 * cross-process lock, reloads the file if another process saved a newer generation (carried in
 * `PRAGMA user_version`, readable from the header), re-applies this process's pending changes,
 * exports, writes temp + fsync + rename, and releases. A watcher reloads on others' saves.
 */
export class SessionIndex {
  private db!: Database;
  private generation = 0;
  private statusValue: IndexStatus = 'uninitialized';
  /**
   * Sessions changed since the last save: `true` (the row in this process's database is the
   * change) or the workspace of a removed session.
   */
  private readonly pending = new Map<string, true | { removedFrom: string }>();
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private watcher: fs.FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly events = new EventEmitter();
  private closed = false;
  /** The file on disk is damaged: the next flush writes it even with nothing pending. */
  private mustSave = false;
  private SQL!: SqlJsStatic;

  private constructor(private readonly options: SessionIndexOptions) {}

  /** Opens the index: loads index.sqlite, or rebuilds it from disk when missing, corrupt or outdated. */
  static async open(options: SessionIndexOptions): Promise<SessionIndex> {
    const index = new SessionIndex(options);
    await index.load();
    if (options.watch) index.startWatching();
    if (options.verifyAfterMs !== undefined) setTimeout(() => index.verify(), options.verifyAfterMs).unref();
    return index;
  }

  get status(): IndexStatus {
    return this.statusValue;
  }

  private get file(): string {
    return this.options.layout.indexFile;
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
    const SQL = await loadSqlJs(this.options.wasmPath);
    this.SQL = SQL;
    const image = this.readImage();
    if (image) {
      try {
        const db = new SQL.Database(image);
        const version = schemaVersionOf(db);
        if (version === SCHEMA_VERSION) checkSchema(SQL, db);
        if (version === SCHEMA_VERSION) {
          this.db = db;
          this.generation = readGenerationOf(db);
          this.setStatus('ready');
          return;
        }
        db.close();
        if (version !== undefined && version > SCHEMA_VERSION) {
          this.logger.warn(`index.sqlite has schema ${version}, newer than this Braid's ${SCHEMA_VERSION}; serving from the session folders without saving the index`);
          this.db = new SQL.Database();
          createSchema(this.db);
          this.setStatus('degraded');
          await this.rebuildInMemory();
          return;
        }
        this.logger.info(`index.sqlite has schema ${version ?? 'none'}; rebuilding it from the session folders`);
      } catch (err) {
        this.logger.warn(`index.sqlite is corrupt (${(err as Error).message.replace(/\s+/g, ' ')}); rebuilding it from the session folders (the damaged file is kept as index.sqlite.corrupt)`);
        this.keepCorruptCopy();
      }
    }
    this.db = new SQL.Database();
    createSchema(this.db);
    await this.rebuild();
  }

  /** The file's bytes, or undefined when there is none (or it is empty). */
  private readImage(): Uint8Array | undefined {
    try {
      const data = fs.readFileSync(this.file);
      if (data.length === 0) {
        this.logger.warn('index.sqlite is empty; rebuilding it from the session folders');
        return undefined;
      }
      return data;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Moves a damaged index.sqlite aside, so that saves do not take it for another process's newer file. */
  private keepCorruptCopy(): void {
    try {
      fs.renameSync(this.file, `${this.file}.corrupt`);
    } catch {
      // best effort: the index is a cache
    }
  }

  /**
   * Checks index.sqlite as it is on disk now (another process, or damage after this one loaded
   * it): undefined when it loads and passes SQLite's integrity check, else what is wrong.
   */
  async checkFile(): Promise<string | undefined> {
    let image: Buffer;
    try {
      image = fs.readFileSync(this.file);
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'index.sqlite is missing' : `index.sqlite cannot be read (${(err as Error).message})`;
    }
    if (image.length === 0) return 'index.sqlite is empty';
    const SQL = await loadSqlJs(this.options.wasmPath);
    try {
      const db = new SQL.Database(image);
      const version = schemaVersionOf(db);
      if (version !== undefined && version > SCHEMA_VERSION) {
        db.close();
        return undefined; // a newer Braid's index: not ours to judge
      }
      if (version !== SCHEMA_VERSION) {
        db.close();
        return `index.sqlite has schema ${version ?? 'none'}, not ${SCHEMA_VERSION}`;
      }
      checkIntegrity(SQL, db);
      // The doctor's check goes further than the one at load: every index, and the search index's own structures.
      const full = db.exec('PRAGMA integrity_check')[0]?.values.map((row) => String(row[0])) ?? [];
      if (full.length !== 1 || full[0] !== 'ok') throw new Error(`the full integrity check failed: ${full.slice(0, 3).join('; ')}`);
      db.run("INSERT INTO sessions_fts(sessions_fts) VALUES('integrity-check')");
      db.close();
      return undefined;
    } catch (err) {
      return `index.sqlite is corrupt (${(err as Error).message.replace(/\s+/g, ' ')})`;
    }
  }

  /** Rebuilds the index from the session folders and rewrites index.sqlite, the damaged file kept as index.sqlite.corrupt. */
  async repairFile(): Promise<void> {
    if (fs.existsSync(this.file) && statSize(this.file) > 0) this.keepCorruptCopy();
    this.replaceDatabase(); // the copy in memory came from the damaged file
    await this.rebuild();
  }

  /**
   * The checks that read the whole index (about 0.4 s at 100k sessions): SQLite's quick_check and
   * values no row may hold. Damage found moves the file aside and rebuilds the index from the
   * folders at once. Returns whether it found damage.
   */
  verify(): boolean {
    if (this.closed || this.statusValue !== 'ready') return false;
    const problem = wholeFileProblem(this.db);
    if (!problem) return false;
    this.rebuildFromFolders(`index.sqlite is corrupt (${problem})`);
    return true;
  }

  /** Damage found after load: the file goes aside and the index is rebuilt from the folders before this returns. */
  private rebuildFromFolders(what: string): void {
    this.logger.warn(`${what}; rebuilding it from the session folders (the damaged file is kept as index.sqlite.corrupt)`);
    this.keepCorruptCopy();
    this.replaceDatabase();
    void this.rebuildInMemory(undefined, Number.POSITIVE_INFINITY); // never awaits: done when it returns
    this.scheduleSave();
    this.events.emit('change');
  }

  /** Starts over from an empty database (the current one came from a damaged file); the next save writes the file. */
  private replaceDatabase(): void {
    try {
      this.db.close();
    } catch {
      // it is being replaced
    }
    this.db = new this.SQL.Database();
    createSchema(this.db);
    this.mustSave = true;
  }

  /** Rebuilds every row from the session folders and saves. Progress is called with (done, total). */
  async rebuild(progress?: (done: number, total: number) => void): Promise<void> {
    this.setStatus('preparing');
    await this.rebuildInMemory(progress);
    this.setStatus('ready');
    this.events.emit('change');
    await this.flush();
  }

  /** With `yieldEvery` infinite it never awaits, so it runs to the end before returning. */
  private async rebuildInMemory(progress?: (done: number, total: number) => void, yieldEvery = 200): Promise<void> {
    const started = Date.now();
    const folders = listSessionFolders(this.options.layout);
    const ids = new Set<string>();
    let done = 0;
    this.db.run('BEGIN');
    try {
      for (const folder of folders) {
        const summary = this.summarize(folder.dir);
        if (summary && !ids.has(summary.state.id)) {
          ids.add(summary.state.id);
          rows.upsertSummary(this.db, summary);
          this.pending.set(summary.state.id, true);
        }
        if (++done % yieldEvery === 0) {
          progress?.(done, folders.length);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      for (const id of rows.fingerprints(this.db).keys()) {
        if (!ids.has(id)) {
          const workspaceKey = rows.getRow(this.db, id)?.workspaceKey ?? '';
          rows.deleteSessionRow(this.db, id);
          this.pending.set(id, { removedFrom: workspaceKey });
        }
      }
      this.db.run('COMMIT');
    } catch (err) {
      this.db.run('ROLLBACK');
      throw err;
    }
    progress?.(folders.length, folders.length);
    this.logger.info(`index rebuilt from ${folders.length} session folder${folders.length === 1 ? '' : 's'} in ${duration(Date.now() - started)}`);
  }

  private summarize(dir: string): SessionSummary | undefined {
    try {
      const reading = readSessionFolder(dir);
      if (reading.stateProblem) this.logger.warn(`${dir}: ${reading.stateProblem}; its state was rebuilt from the log`);
      if (reading.report.tornTail) this.logger.info(`${dir}: the log ends with a torn line (ignored)`);
      const problem = logProblem(reading.report);
      if (problem) this.logger.warn(`${dir}: ${problem}`);
      return reading.summary;
    } catch (err) {
      this.logger.warn(`${dir}: cannot be read (${(err as Error).message}); left out of the index`);
      return undefined;
    }
  }

  /**
   * Compares one workspace's rows with its folders (state.json mtime, log size) and updates what
   * differs: new folders added, changed ones re-read, rows without a folder removed.
   */
  async reconcile(workspaceKey?: string, options: { dryRun?: boolean } = {}): Promise<ReconcileResult> {
    const result: ReconcileResult = { added: 0, updated: 0, removed: 0 };
    const known = rows.fingerprints(this.db, workspaceKey);
    const folders = workspaceKey ? listSessionFolders(this.options.layout, workspaceKey) : listSessionFolders(this.options.layout);
    const seen = new Set<string>();
    let n = 0;
    for (const folder of folders) {
      seen.add(folder.id);
      const before = known.get(folder.id);
      if (before && before.stateMtime === statMtime(path.join(folder.dir, 'state.json')) && before.logBytes === statSize(this.options.layout.agentLog(folder.dir))) continue;
      if (options.dryRun) {
        if (before) result.updated++;
        else result.added++;
        continue;
      }
      const summary = this.summarize(folder.dir);
      if (!summary) continue;
      this.apply(summary.state.id, summary);
      if (before) result.updated++;
      else result.added++;
      if (++n % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    for (const id of known.keys()) {
      if (!seen.has(id)) {
        if (!options.dryRun) this.apply(id, null);
        result.removed++;
      }
    }
    if (!options.dryRun && result.added + result.updated + result.removed > 0) {
      this.logger.info(`index reconciled${workspaceKey ? ` for ${workspaceKey}` : ''}: ${result.added} added, ${result.updated} updated, ${result.removed} removed`);
      this.events.emit('change');
    }
    return result;
  }

  /** Records a session's current summary (or its removal with null); saved soon after. `notify` tells listeners now. */
  apply(id: string, summary: SessionSummary | null, notify = false): void {
    this.guarded(() => {
      if (summary) {
        rows.upsertSummary(this.db, summary);
        this.pending.set(id, true);
      } else {
        const workspaceKey = rows.getRow(this.db, id)?.workspaceKey ?? '';
        rows.deleteSessionRow(this.db, id);
        this.pending.set(id, { removedFrom: workspaceKey });
      }
    });
    this.scheduleSave();
    if (notify) this.events.emit('change');
  }

  /** Replaces only what state.json keeps of a session the index knows (a rename, an archive): no log scan. */
  applyState(state: StoredState, stateMtime: number, dir: string): void {
    const summary = this.guarded(() => rows.readSummary(this.db, state.id));
    if (!summary) {
      this.refresh(dir);
      return;
    }
    this.apply(state.id, summarize(state, summary.fold, summary.state.agents, summary.logBytes, stateMtime), true);
  }

  /** What the index holds about a session, as a summary. */
  summaryOf(id: string): SessionSummary | undefined {
    return this.guarded(() => rows.readSummary(this.db, id));
  }

  /**
   * Brings a pending change up to date with disk before it is saved: another process may have
   * changed the same session's state.json since (both write state under the session's lock, so
   * the file has every change; the last index save must carry it), or removed or restored it.
   */
  private freshen(id: string, change: true | { removedFrom: string }): SessionSummary | null {
    const layout = this.options.layout;
    if (change !== true) {
      if (!isWorkspaceKey(change.removedFrom)) return null;
      const dir = layout.sessionDir(change.removedFrom, id);
      return fs.existsSync(dir) ? this.summarize(dir) ?? null : null;
    }
    const current = rows.readSummary(this.db, id);
    if (!current) return null;
    return this.freshenSummary(current);
  }

  private freshenSummary(change: SessionSummary): SessionSummary | null {
    const layout = this.options.layout;
    const dir = layout.sessionDir(change.state.workspaceKey, change.state.id);
    const stateFile = layout.stateFile(dir);
    const mtime = statMtime(stateFile);
    if (mtime === 0 && !fs.existsSync(dir)) return null;
    // Another process appended to the log: counts and previews must be read again.
    if (statSize(layout.agentLog(dir)) !== change.logBytes) return this.summarize(dir) ?? change;
    // state.json is read again whatever its mtime says (two writes within one clock tick share
    // one): it has every process's changes, since all write it under the session's lock.
    try {
      return summarize(readState(stateFile), change.fold, change.state.agents, change.logBytes, mtime);
    } catch {
      return change;
    }
  }

  private applyTo(db: Database, id: string, summary: SessionSummary | null): void {
    if (summary) rows.upsertSummary(db, summary);
    else rows.deleteSessionRow(db, id);
  }

  /** Re-reads one session folder into the index. */
  refresh(dir: string): SessionSummary | undefined {
    const summary = this.summarize(dir);
    if (summary) {
      this.apply(summary.state.id, summary);
      this.events.emit('change');
    }
    return summary;
  }

  list(filter: rows.ListFilter): rows.SessionRow[] {
    return this.guarded(() => rows.listRows(this.db, filter));
  }

  count(filter: rows.ListFilter): number {
    return this.guarded(() => rows.countRows(this.db, filter));
  }

  get(id: string): rows.SessionRow | undefined {
    return this.guarded(() => rows.getRow(this.db, id));
  }

  /**
   * Session ids that begin with `prefix` (every workspace, archived and hidden ones too), in
   * order, at most `limit`: a range over the id's unique index, for ids typed shortened.
   */
  idsStartingWith(prefix: string, limit: number): string[] {
    // Ids are ASCII letters, digits and `_`, all below DEL: [prefix, prefix + DEL) holds exactly the ids that begin with it.
    return this.guarded(() => queryAll<{ id: string }>(this.db, 'SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT ?', [prefix, `${prefix}\u007f`, limit]).map((r) => r.id));
  }

  search(text: string, filter: rows.ListFilter): rows.SessionRow[] {
    return this.guarded(() => rows.searchRows(this.db, text, filter));
  }

  /** The titles of the sessions forked from `sourceId` in its workspace (archived and hidden ones too). */
  forkTitles(workspaceKey: string, sourceId: string): string[] {
    return this.guarded(() => rows.forkTitles(this.db, workspaceKey, sourceId));
  }

  workspaces(): rows.WorkspaceRow[] {
    return this.guarded(() => rows.listWorkspaces(this.db));
  }

  /** Usage of a workspace (every workspace when absent), each model call counted once. */
  usageReport(workspaceKey?: string): UsageReport {
    return this.guarded(() => usageReport(this.db, workspaceKey));
  }

  /** A session's own calls, and those its log inherited from the session it was forked from. */
  sessionUsage(id: string): SessionUsage {
    return this.guarded(() => sessionUsage(this.db, id));
  }

  /**
   * Runs `work` on the database. Damage SQLite meets only now (a page the check at load did not
   * read, such as the search index's) moves the file aside and rebuilds the index from the session
   * folders at once; `work` then runs on the rebuilt index.
   */
  private guarded<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      if (!/malformed|not a database|database corruption|readonly database|UNIQUE constraint failed/i.test((err as Error).message)) throw err; // read-only: a damaged header byte; UNIQUE: a damaged id index (rows are upserted)
      this.rebuildFromFolders(`index.sqlite is damaged (${(err as Error).message})`);
      return work();
    }
  }

  private scheduleSave(): void {
    if (this.closed || this.statusValue === 'degraded' || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.flush().catch((err: unknown) => this.logger.error(`saving the session index failed: ${(err as Error).message}`));
    }, this.options.saveDelayMs ?? 100);
  }

  /** Saves pending changes now (waits for a save in progress first). */
  async flush(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    while (this.saving) await this.saving;
    if ((this.pending.size === 0 && !this.mustSave) || this.statusValue === 'degraded') return;
    this.saving = this.save().finally(() => {
      this.saving = undefined;
    });
    await this.saving;
  }

  private async save(): Promise<void> {
    fs.mkdirSync(this.options.layout.root, { recursive: true });
    let lock: FileLock;
    try {
      lock = await FileLock.acquire(this.options.layout.indexLock, LOCK);
    } catch (err) {
      if (err instanceof LockTimeoutError) {
        this.logger.warn(`could not save the session index: ${err.message}; will retry`);
        this.scheduleSave();
        return;
      }
      throw err;
    }
    try {
      const onDisk = readHeaderUserVersion(this.file);
      // A damaged file's header may claim any generation: only one that loaded counts.
      if (onDisk > this.generation && await this.reloadFromDisk()) this.generation = Math.max(this.generation, onDisk);
      const applying = new Map(this.pending);
      this.guarded(() => {
        for (const [id, change] of applying) this.applyTo(this.db, id, this.freshen(id, change));
      });
      this.generation += 1;
      this.db.run("UPDATE meta SET value = ? WHERE key = 'generation'", [String(this.generation)]);
      this.db.run(`PRAGMA user_version = ${this.generation}`);
      writeFileAtomic(this.file, this.db.export());
      for (const [id, summary] of applying) if (this.pending.get(id) === summary) this.pending.delete(id);
      this.mustSave = false;
    } finally {
      lock.release();
    }
  }

  /** Loads the file another process saved, then re-applies this process's unsaved changes. */
  private async reloadFromDisk(): Promise<boolean> {
    const image = this.readImage();
    if (!image) return false;
    const SQL = await loadSqlJs(this.options.wasmPath);
    let db: Database;
    try {
      db = new SQL.Database(image);
      if (schemaVersionOf(db) !== SCHEMA_VERSION) {
        db.close();
        return false;
      }
      checkIntegrity(SQL, db);
    } catch (err) {
      this.logger.warn(`index.sqlite written by another process cannot be read (${(err as Error).message}); keeping this process's copy`);
      return false;
    }
    for (const [id, change] of this.pending) this.applyTo(db, id, change === true ? rows.readSummary(this.db, id) ?? null : null);
    this.db.close();
    this.db = db;
    this.generation = readGenerationOf(db);
    return true;
  }

  private startWatching(): void {
    const check = () => {
      if (this.closed || this.saving) return;
      if (readHeaderUserVersion(this.file) <= this.generation) return;
      this.saving = this.reloadFromDisk().then((changed) => {
        if (changed) this.events.emit('change');
      }, (err: unknown) => this.logger.warn(`reloading the session index failed: ${(err as Error).message}`)).finally(() => {
        this.saving = undefined;
      });
    };
    try {
      fs.mkdirSync(this.options.layout.root, { recursive: true });
      this.watcher = fs.watch(this.options.layout.root, (_event, name) => {
        if (name === 'index.sqlite') setTimeout(check, 20);
      });
      this.watcher.on('error', () => undefined);
    } catch (err) {
      this.logger.warn(`cannot watch ${this.options.layout.root} (${(err as Error).message}); polling instead`);
    }
    // A poll as well: file watching is unreliable on network and some container file systems.
    this.pollTimer = setInterval(check, 1000);
    this.pollTimer.unref();
  }

  /** Saves what is pending, stops watching and frees the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    this.watcher?.close();
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.db.close();
    this.events.removeAllListeners();
  }
}

/** Throws when the schema text differs from the one this version creates (cheap: sqlite_master only). */
function checkSchema(SQL: SqlJsStatic, db: Database): void {
  if (schemaText(db) === expectedSchemaText(SQL)) return;
  db.close();
  throw new Error('its table definitions are damaged');
}

/** What the whole-file checks find wrong: SQLite's quick_check, then values no row may hold. */
function wholeFileProblem(db: Database): string | undefined {
  try {
    return checkWholeFile(db);
  } catch (err) {
    return (err as Error).message.replace(/\s+/g, ' '); // SQLite may throw instead of answering
  }
}

function checkWholeFile(db: Database): string | undefined {
  const result = db.exec('PRAGMA quick_check')[0]?.values.map((row) => String(row[0])) ?? [];
  if (result.length !== 1 || result[0] !== 'ok') {
    const problems = result.filter((line) => !line.startsWith('*** in database')).slice(0, 3).join('; ').replace(/\s+/g, ' ');
    return `the integrity check failed: ${problems || 'no answer'}`;
  }
  // Damage inside a row that leaves the page valid: values the columns that decide which list a
  // session is in can never hold (a damaged `visibility` would hide a session from every list).
  const impossible = Number(db.exec(IMPOSSIBLE_ROWS)[0]?.values[0]?.[0] ?? 0);
  return impossible > 0 ? `${counted(impossible, 'row')} ${impossible === 1 ? 'holds' : 'hold'} values Braid never writes` : undefined;
}

/** Throws when the image fails the schema check or the whole-file checks (the doctor's file check). */
function checkIntegrity(SQL: SqlJsStatic, db: Database): void {
  checkSchema(SQL, db);
  const problem = wholeFileProblem(db);
  if (problem) {
    db.close();
    throw new Error(problem);
  }
}

const IMPOSSIBLE_ROWS = `SELECT count(*) FROM sessions WHERE
  visibility NOT IN ('visible', 'hidden') OR archived NOT IN (0, 1) OR kind NOT IN ('conversation', 'task', 'peek')
  OR status NOT IN ('idle', 'running', 'error', 'aborted', 'interrupted') OR title_source NOT IN ('auto', 'user')
  OR length(id) != 30 OR id NOT GLOB 'ses_*' OR workspace_key NOT GLOB 'wd_*'`;

/** The schema as SQLite keeps it (sqlite_master), as one string. */
function schemaText(db: Database): string {
  return JSON.stringify(db.exec("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%' ORDER BY type, name")[0]?.values ?? []);
}

let expected: string | undefined;

/** The schema text of a fresh index, made once. */
function expectedSchemaText(SQL: SqlJsStatic): string {
  if (expected === undefined) {
    const fresh = new SQL.Database();
    createSchema(fresh);
    expected = schemaText(fresh);
    fresh.close();
  }
  return expected;
}

function readGenerationOf(db: Database): number {
  const value = Number(db.exec("SELECT value FROM meta WHERE key = 'generation'")[0]?.values[0]?.[0] ?? 0);
  return Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
