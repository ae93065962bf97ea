import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FileSystemError, fsyncDir } from '../fs/atomic';
import { FileLock, LockTimeoutError } from '../fs/fileLock';
import type { Logger } from '../logger';
import type { StoreLayout } from '../format/layout';
import { counted } from '../counted';
import { createSchema, FRESH_SCHEMA_DIGEST, schemaVersionOf, SCHEMA_VERSION } from './schema';
import { openInPlace, readHeaderChangeCounter, setFence, takeHostError, type Database, type SqlJsStatic } from './sqlite';
import { errorMessage } from '../errors';

/**
 * What opening index.sqlite found: a file to serve from in place (`ready`), one from a newer Braid
 * left alone (`newer`: serve from an in-memory database filled from the folders, never written), or
 * nothing usable (`rebuild`: build a new file from the folders).
 */
export type OpenedIndex = { kind: 'ready' } | { kind: 'newer'; db: Database } | { kind: 'rebuild' };

/** A new index file being filled from the folders by this process alone, until `install` puts it in place. */
export interface IndexBuild {
  readonly db: Database;
  readonly path: string;
}

/**
 * index.lock's times: a holder past `staleMs` is taken over (it was stopped, or hung); a process
 * waits `timeoutMs` for it at most. BRAID_INDEX_LOCK_WAIT_MS shortens the wait (tests).
 */
function lockOptions(): { staleMs: number; timeoutMs: number } {
  const wait = Number(process.env.BRAID_INDEX_LOCK_WAIT_MS);
  return { staleMs: 5_000, timeoutMs: wait > 0 ? wait : 20_000 };
}

/** A holder reading or writing the file touches index.lock this often, so a long statement is not taken for a stopped process. */
const HEARTBEAT_MS = 1_000;

/**
 * This process lost index.lock while it was using the file (it was stopped past the lock's stale
 * time and another process took the lock over): its writes were refused, and what it was writing
 * stays pending until it holds the lock again.
 */
export class IndexLockLostError extends Error {
  override readonly name = 'IndexLockLostError';
}

/** The file on disk is not the one this process opened, and the one there now is not a usable index. */
export class IndexFileReplacedError extends Error {
  override readonly name = 'IndexFileReplacedError';
}

let buildCounter = 0;

/**
 * A workspace's index.sqlite, used in place: SQLite reads the pages a query needs and writes the
 * pages a transaction changes, with its rollback journal (index.sqlite-journal) beside it. Several
 * processes share the file; sql.js's file locks are not real between processes, so every use of
 * the file, a query as much as a transaction, runs inside `use`, which holds index.lock. The lock
 * is held only while synchronous work runs (never across an await), so its holders never wait on
 * each other for long; a process stopped while holding it past its stale time loses it, and the
 * write fence then refuses its writes when it resumes.
 *
 * A file that must be rebuilt is built beside it under a temp name by one process and renamed over
 * it (`install`); the other processes notice at their next `use` (the path names another file) and
 * open the new one.
 */
export class IndexFile {
  private db: Database | undefined;
  /** The inode of the file `db` has open: another one at the path means the file was replaced. */
  private inode = 0;
  /** Whether a connection was opened before: a file found at the path later was put there by another process. */
  private opened = false;
  private lockHeld: FileLock | undefined;

  constructor(
    private readonly layout: StoreLayout,
    private readonly workspaceKey: string,
    private readonly SQL: SqlJsStatic,
    private readonly logger: Logger,
  ) {}

  /** The file as messages name it: its workspace's folder and index.sqlite. */
  get name(): string {
    return `${this.workspaceKey}/index.sqlite`;
  }

  /** The file's path. */
  get path(): string {
    return this.layout.indexFile(this.workspaceKey);
  }

  private get journal(): string {
    return `${this.path}-journal`;
  }

  /** Opens the file in place; a corrupt one is moved aside, one of an older schema is left to be replaced. */
  open(): OpenedIndex {
    if (!fs.existsSync(this.path)) return { kind: 'rebuild' };
    if (!this.hasContent()) {
      this.logger.warn(`${this.name} is empty; rebuilding it from the session folders`);
      return { kind: 'rebuild' };
    }
    try {
      const version = this.use((db) => {
        const found = schemaVersionOf(db);
        if (found === SCHEMA_VERSION) checkSchema(this.SQL, db);
        return found;
      });
      if (version === SCHEMA_VERSION) return { kind: 'ready' };
      this.closeConnection();
      if (version !== undefined && version > SCHEMA_VERSION) {
        this.logger.warn(
          `${this.name} has schema ${version}, newer than this Braid's ${SCHEMA_VERSION}; serving from the session folders without saving the index`,
        );
        return { kind: 'newer', db: this.emptyDatabase() };
      }
      this.logger.info(`${this.name} has schema ${version ?? 'none'}; rebuilding it from the session folders`);
    } catch (err) {
      if (err instanceof LockTimeoutError) throw err;
      this.closeConnection();
      this.logger.warn(
        `${this.name} is corrupt (${errorMessage(err).replace(/\s+/g, ' ')}); rebuilding it from the session folders (the damaged file is kept as ${this.name}.corrupt)`,
      );
      this.keepCorruptCopy();
    }
    return { kind: 'rebuild' };
  }

  /** An in-memory database with the tables and no rows. */
  emptyDatabase(): Database {
    const db = new this.SQL.Database();
    createSchema(db);
    return db;
  }

  /**
   * Runs `work` on the file while holding index.lock, with writes fenced to this holding: SQLite
   * sees the file as no other process is changing it. Reopens the file first when another process
   * replaced it. Throws LockTimeoutError when another process keeps the lock, and
   * IndexFileReplacedError when the file at the path is not an index any more.
   */
  use<T>(work: (db: Database) => T): T {
    takeHostError(this.path);
    try {
      return this.locked(() => work(this.connection()));
    } catch (err) {
      const hostError = takeHostError(this.path);
      if (hostError?.error instanceof IndexLockLostError) {
        this.closeConnection(); // its transaction was cut short: SQLite's state of the file is not to be trusted
        throw hostError.error;
      }
      // What the file system said, naming the file ("cannot write …/index.sqlite: no space left on device (ENOSPC)").
      throw hostError ? new FileSystemError(hostError.action, this.path, hostError.error) : err;
    }
  }

  /**
   * Runs `work` holding index.lock, with writes to the file fenced to this holding (re-entrant).
   * `work` calls `beat` while it works on other files, so a long holding is not taken for a stopped one.
   */
  private locked<T>(work: (beat: () => void) => T): T {
    const held = this.lockHeld;
    if (held) return work(() => held.refresh()); // inside a use already (a query run by a write's work)
    fs.mkdirSync(this.layout.workspaceDir(this.workspaceKey), { recursive: true });
    const lock = FileLock.acquireSync(this.layout.indexLock(this.workspaceKey), lockOptions());
    this.lockHeld = lock;
    let lastBeat = Date.now();
    const beat = (): void => {
      if (Date.now() - lastBeat < HEARTBEAT_MS) return;
      lastBeat = Date.now();
      lock.refresh();
    };
    setFence(this.path, {
      beforeWrite: () => {
        if (!lock.isHeld()) throw new IndexLockLostError(`${this.name}: another process took over its lock while this one was stopped`);
      },
      touched: beat,
    });
    try {
      return work(beat);
    } catch (err) {
      // An error after the lock was lost may come from reading pages another process was writing: not damage.
      if (!lock.isHeld() && !(err instanceof IndexLockLostError))
        throw new IndexLockLostError(`${this.name}: another process took over its lock while this one used it (${errorMessage(err)})`);
      throw err;
    } finally {
      setFence(this.path, undefined);
      this.lockHeld = undefined;
      lock.release();
    }
  }

  /** The open database of the file at the path now (the lock is held). */
  private connection(): Database {
    const inode = inodeOf(this.path);
    if (this.db && inode === this.inode) return this.db;
    const reopening = this.opened;
    this.closeConnection();
    if (inode === undefined) throw new IndexFileReplacedError(`${this.name} is gone (another process moved it aside)`);
    const db = openInPlace(this.SQL, this.path);
    this.db = db;
    this.inode = inode;
    this.opened = true;
    db.run('PRAGMA journal_mode = TRUNCATE');
    db.run('PRAGMA synchronous = NORMAL');
    if (reopening && schemaVersionOf(db) !== SCHEMA_VERSION) {
      this.closeConnection();
      throw new IndexFileReplacedError(`${this.name} was replaced by a file this Braid cannot serve from`);
    }
    return db;
  }

  private closeConnection(): void {
    try {
      this.db?.close();
    } catch {
      // a connection whose writes were refused may fail to close cleanly; it is dropped either way
    }
    this.db = undefined;
    this.inode = 0;
  }

  /**
   * Starts a new index file beside the current one (a temp name the doctor sweeps if this process
   * dies), with the tables and no rows, for this process alone: no journal, no syncs until
   * `install`.
   */
  startBuild(): IndexBuild {
    const dir = this.layout.workspaceDir(this.workspaceKey);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `.index.sqlite.tmp-${process.pid}-${++buildCounter}`);
    fs.rmSync(file, { force: true });
    const db = openInPlace(this.SQL, file);
    db.run('PRAGMA journal_mode = OFF');
    db.run('PRAGMA synchronous = OFF');
    createSchema(db);
    return { db, path: file };
  }

  /**
   * Puts a finished build in place of index.sqlite. `settle` brings the build up to date with the
   * folders: once before taking the lock (most of what changed while it was built), and once more
   * holding it, just before the rename, so that no row another process wrote to the old file is
   * missing from the new one (another process writes rows only holding the lock, after the folder
   * they describe). Synced, then renamed over the old file (a journal left by a process that died
   * in a transaction belongs to the file replaced, and goes with it). The next `use` opens the new file.
   */
  install(build: IndexBuild, settle: (db: Database, beat: () => void) => void): void {
    settle(build.db, () => undefined);
    fsyncFile(build.path);
    this.locked((beat) => {
      settle(build.db, beat);
      build.db.close();
      fsyncFile(build.path);
      this.closeConnection();
      fs.rmSync(this.journal, { force: true });
      fs.renameSync(build.path, this.path);
      fsyncDir(path.dirname(this.path));
    });
  }

  /** Drops a build that will not be installed. */
  abandonBuild(build: IndexBuild): void {
    try {
      build.db.close();
    } catch {
      // dropped either way
    }
    fs.rmSync(build.path, { force: true });
  }

  /** Whether there is a file with bytes in it (a damaged one worth keeping aside). */
  hasContent(): boolean {
    try {
      return fs.statSync(this.path).size > 0;
    } catch {
      return false;
    }
  }

  /**
   * Moves a damaged index.sqlite aside (with its journal, which could only damage a new file),
   * holding the lock, so that no process is inside a transaction on it.
   */
  keepCorruptCopy(): void {
    try {
      this.locked(() => {
        this.closeConnection();
        fs.renameSync(this.path, `${this.path}.corrupt`);
        fs.rmSync(this.journal, { force: true });
      });
    } catch {
      this.closeConnection(); // best effort: the index is a cache, and its replacement is renamed over it anyway
    }
  }

  /**
   * Checks index.sqlite as it is on disk now (another process, or damage after this one opened
   * it): undefined when it opens and passes SQLite's integrity check, else what is wrong.
   */
  check(): string | undefined {
    if (!fs.existsSync(this.path)) return `${this.name} is missing`;
    if (!this.hasContent()) return `${this.name} is empty`;
    try {
      return this.use((db) => {
        const version = schemaVersionOf(db);
        if (version !== undefined && version > SCHEMA_VERSION) return undefined; // a newer Braid's index: not ours to judge
        if (version !== SCHEMA_VERSION) return `${this.name} has schema ${version ?? 'none'}, not ${SCHEMA_VERSION}`;
        checkSchema(this.SQL, db);
        const problem = wholeFileProblem(db);
        if (problem) throw new Error(problem);
        // The doctor's check goes further than the one at open: every index, and the search index's own structures.
        const full = db.exec('PRAGMA integrity_check')[0]?.values.map((row) => String(row[0])) ?? [];
        if (full.length !== 1 || full[0] !== 'ok') throw new Error(`the full integrity check failed: ${full.slice(0, 3).join('; ')}`);
        db.run("INSERT INTO turn_fts(turn_fts) VALUES('integrity-check')");
        return undefined;
      });
    } catch (err) {
      if (err instanceof LockTimeoutError) return `${this.name} cannot be checked: ${err.message}`;
      return `${this.name} is corrupt (${errorMessage(err).replace(/\s+/g, ' ')})`;
    }
  }

  /** The file's change counter as its header says (a commit changes it), read without the lock; -1 when unreadable. */
  changeCounterOnDisk(): number {
    return readHeaderChangeCounter(this.path);
  }

  /** Closes this process's connection to the file. */
  close(): void {
    this.closeConnection();
  }
}

function inodeOf(file: string): number | undefined {
  try {
    return fs.statSync(file).ino;
  } catch {
    return undefined;
  }
}

function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Throws when the schema text differs from the one this version creates (cheap: sqlite_master
 * only). A text whose digest is FRESH_SCHEMA_DIGEST is that one; any other is compared with a
 * fresh index's, made in memory (about 30 ms a process, which a fresh command no longer pays).
 */
function checkSchema(SQL: SqlJsStatic, db: Database): void {
  const text = schemaText(db);
  if (schemaDigest(text) === FRESH_SCHEMA_DIGEST) return;
  if (text !== expectedSchemaText(SQL)) throw new Error('its table definitions are damaged');
}

/** The SHA-256 of a schema text, in hex. */
function schemaDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The digest of the schema of `db` as SQLite keeps it: FRESH_SCHEMA_DIGEST for a fresh index of this version. */
export function schemaDigestOf(db: Database): string {
  return schemaDigest(schemaText(db));
}

/** What the whole-file checks find wrong: SQLite's quick_check (unless `rows` only), then the sessions table's indexes against it, then values no row may hold. */
export function wholeFileProblem(db: Database, check: WholeFileCheck = 'pages'): string | undefined {
  try {
    return checkWholeFile(db, check);
  } catch (err) {
    return errorMessage(err).replace(/\s+/g, ' '); // SQLite may throw instead of answering
  }
}

/**
 * How much of the file a check reads: `pages`, every page (SQLite's quick_check, then the rows);
 * `rows`, the listed rows alone (the sessions table and its indexes, which hold no state, fold or
 * search text).
 */
export type WholeFileCheck = 'pages' | 'rows';

function checkWholeFile(db: Database, check: WholeFileCheck): string | undefined {
  const result = check === 'pages' ? (db.exec('PRAGMA quick_check')[0]?.values.map((row) => String(row[0])) ?? []) : ['ok'];
  if (result.length !== 1 || result[0] !== 'ok') {
    const problems = result
      .filter((line) => !line.startsWith('*** in database'))
      .slice(0, 3)
      .join('; ')
      .replace(/\s+/g, ' ');
    return `the integrity check failed: ${problems || 'no answer'}`;
  }
  // Damage inside an index of the sessions table that leaves its pages valid (quick_check does not
  // compare an index with its table): a row its id, workspace or time no longer finds is missing
  // from the lists that look it up that way. Checking this one table's indexes costs a few ms.
  const indexed = db.exec('PRAGMA integrity_check(sessions)')[0]?.values.map((row) => String(row[0])) ?? [];
  if (indexed.length !== 1 || indexed[0] !== 'ok') return `the sessions table's indexes disagree with it: ${indexed.slice(0, 3).join('; ') || 'no answer'}`;
  // Damage inside a row that leaves the page valid: values the columns that decide which list a
  // session is in can never hold (a damaged `visibility` would hide a session from every list).
  const impossible = Number(db.exec(IMPOSSIBLE_ROWS)[0]?.values[0]?.[0] ?? 0);
  return impossible > 0 ? `${counted(impossible, 'row')} ${impossible === 1 ? 'holds' : 'hold'} values Braid never writes` : undefined;
}

const IMPOSSIBLE_ROWS = `SELECT count(*) FROM sessions WHERE
  visibility NOT IN ('visible', 'hidden') OR archived NOT IN (0, 1) OR kind NOT IN ('conversation', 'task', 'peek')
  OR status NOT IN ('idle', 'running', 'error', 'aborted', 'interrupted') OR title_source NOT IN ('auto', 'user')
  OR length(id) != 30 OR id NOT GLOB 'ses_*' OR workspace_key NOT GLOB 'wd_*'`;

/** The schema as SQLite keeps it (sqlite_master), as one string. */
function schemaText(db: Database): string {
  return JSON.stringify(
    db.exec("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%' ORDER BY type, name")[0]?.values ?? [],
  );
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
