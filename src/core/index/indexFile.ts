import fs from 'node:fs';
import { writeFileAtomic } from '../fs/atomic';
import { FileLock } from '../fs/fileLock';
import { statSize } from '../fs/probe';
import type { Logger } from '../logger';
import type { StoreLayout } from '../format/layout';
import { counted } from '../counted';
import { createSchema, schemaVersionOf, SCHEMA_VERSION } from './schema';
import { readHeaderUserVersion, type Database, type SqlJsStatic } from './sqlite';
import { errorMessage } from '../errors';

/**
 * What opening index.sqlite found: a file to serve from (`ready`), one from a newer Braid left
 * alone (`newer`: serve from an empty database filled from the folders, never save), or nothing
 * usable (`rebuild`: an empty database to fill from the folders and save).
 */
export type OpenedIndex = { kind: 'ready'; db: Database; generation: number } | { kind: 'newer'; db: Database } | { kind: 'rebuild'; db: Database };

const LOCK = { staleMs: 15_000, timeoutMs: 20_000 };

/**
 * A workspace's index.sqlite on disk: loading it (with the cheap schema check), keeping a damaged
 * copy aside, the checks that read the whole file, the cross-process lock, and writing a
 * generation. sql.js is loaded by the caller, so every step but the lock is synchronous.
 */
export class IndexFile {
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

  /** Loads the file; a corrupt one is moved aside, one of an older schema is dropped. */
  open(): OpenedIndex {
    const SQL = this.SQL;
    const image = this.readImage();
    if (image) {
      try {
        const db = new SQL.Database(image);
        const version = schemaVersionOf(db);
        if (version === SCHEMA_VERSION) checkSchema(SQL, db);
        if (version === SCHEMA_VERSION) return { kind: 'ready', db, generation: readGenerationOf(db) };
        db.close();
        if (version !== undefined && version > SCHEMA_VERSION) {
          this.logger.warn(
            `${this.name} has schema ${version}, newer than this Braid's ${SCHEMA_VERSION}; serving from the session folders without saving the index`,
          );
          return { kind: 'newer', db: this.emptyDatabase() };
        }
        this.logger.info(`${this.name} has schema ${version ?? 'none'}; rebuilding it from the session folders`);
      } catch (err) {
        this.logger.warn(
          `${this.name} is corrupt (${errorMessage(err).replace(/\s+/g, ' ')}); rebuilding it from the session folders (the damaged file is kept as ${this.name}.corrupt)`,
        );
        this.keepCorruptCopy();
      }
    }
    return { kind: 'rebuild', db: this.emptyDatabase() };
  }

  /** A database with the tables and no rows (after `open`, which loads sql.js). */
  emptyDatabase(): Database {
    const db = new this.SQL.Database();
    createSchema(db);
    return db;
  }

  /**
   * The file another process saved, when it loads and passes every check; undefined otherwise
   * (no file, another schema, or damage, which is logged).
   */
  openSaved(): { db: Database; generation: number } | undefined {
    const image = this.readImage();
    if (!image) return undefined;
    const SQL = this.SQL;
    let db: Database;
    try {
      db = new SQL.Database(image);
      if (schemaVersionOf(db) !== SCHEMA_VERSION) {
        db.close();
        return undefined;
      }
      checkIntegrity(SQL, db);
    } catch (err) {
      this.logger.warn(`${this.name} written by another process cannot be read (${errorMessage(err)}); keeping this process's copy`);
      return undefined;
    }
    return { db, generation: readGenerationOf(db) };
  }

  /** The file's bytes, or undefined when there is none (or it is empty). */
  private readImage(): Uint8Array | undefined {
    try {
      const data = fs.readFileSync(this.path);
      if (data.length === 0) {
        this.logger.warn(`${this.name} is empty; rebuilding it from the session folders`);
        return undefined;
      }
      return data;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Whether there is a file with bytes in it (a damaged one worth keeping aside). */
  hasContent(): boolean {
    return fs.existsSync(this.path) && statSize(this.path) > 0;
  }

  /** Moves a damaged index.sqlite aside, so that saves do not take it for another process's newer file. */
  keepCorruptCopy(): void {
    try {
      fs.renameSync(this.path, `${this.path}.corrupt`);
    } catch {
      // best effort: the index is a cache
    }
  }

  /**
   * Checks index.sqlite as it is on disk now (another process, or damage after this one loaded
   * it): undefined when it loads and passes SQLite's integrity check, else what is wrong.
   */
  check(): string | undefined {
    let image: Buffer;
    try {
      image = fs.readFileSync(this.path);
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? `${this.name} is missing` : `${this.name} cannot be read (${errorMessage(err)})`;
    }
    if (image.length === 0) return `${this.name} is empty`;
    const SQL = this.SQL;
    try {
      const db = new SQL.Database(image);
      const version = schemaVersionOf(db);
      if (version !== undefined && version > SCHEMA_VERSION) {
        db.close();
        return undefined; // a newer Braid's index: not ours to judge
      }
      if (version !== SCHEMA_VERSION) {
        db.close();
        return `${this.name} has schema ${version ?? 'none'}, not ${SCHEMA_VERSION}`;
      }
      checkIntegrity(SQL, db);
      // The doctor's check goes further than the one at load: every index, and the search index's own structures.
      const full = db.exec('PRAGMA integrity_check')[0]?.values.map((row) => String(row[0])) ?? [];
      if (full.length !== 1 || full[0] !== 'ok') throw new Error(`the full integrity check failed: ${full.slice(0, 3).join('; ')}`);
      db.run("INSERT INTO sessions_fts(sessions_fts) VALUES('integrity-check')");
      db.close();
      return undefined;
    } catch (err) {
      return `${this.name} is corrupt (${errorMessage(err).replace(/\s+/g, ' ')})`;
    }
  }

  /** The generation the file on disk holds, read from its header without loading it (-1 when unreadable). */
  generationOnDisk(): number {
    return readHeaderUserVersion(this.path);
  }

  /** Takes the cross-process lock held while saving; throws LockTimeoutError when another process keeps it. */
  async lock(): Promise<FileLock> {
    fs.mkdirSync(this.layout.workspaceDir(this.workspaceKey), { recursive: true });
    return FileLock.acquire(this.layout.indexLock(this.workspaceKey), LOCK);
  }

  /** Writes `db` as generation `generation` (temp + fsync + rename); the caller holds the lock. */
  write(db: Database, generation: number): void {
    db.run("UPDATE meta SET value = ? WHERE key = 'generation'", [String(generation)]);
    db.run(`PRAGMA user_version = ${generation}`);
    writeFileAtomic(this.path, db.export());
  }
}

/** Throws when the schema text differs from the one this version creates (cheap: sqlite_master only). */
function checkSchema(SQL: SqlJsStatic, db: Database): void {
  if (schemaText(db) === expectedSchemaText(SQL)) return;
  db.close();
  throw new Error('its table definitions are damaged');
}

/** What the whole-file checks find wrong: SQLite's quick_check, then values no row may hold. */
export function wholeFileProblem(db: Database): string | undefined {
  try {
    return checkWholeFile(db);
  } catch (err) {
    return errorMessage(err).replace(/\s+/g, ' '); // SQLite may throw instead of answering
  }
}

function checkWholeFile(db: Database): string | undefined {
  const result = db.exec('PRAGMA quick_check')[0]?.values.map((row) => String(row[0])) ?? [];
  if (result.length !== 1 || result[0] !== 'ok') {
    const problems = result
      .filter((line) => !line.startsWith('*** in database'))
      .slice(0, 3)
      .join('; ')
      .replace(/\s+/g, ' ');
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

function readGenerationOf(db: Database): number {
  const value = Number(db.exec("SELECT value FROM meta WHERE key = 'generation'")[0]?.values[0]?.[0] ?? 0);
  return Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
