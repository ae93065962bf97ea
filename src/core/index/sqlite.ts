import fs from 'node:fs';
import path from 'node:path';
import type { Database, SqlJsStatic, SqlValue, Statement } from 'sql.js';
import { faultError } from '../fs/faults';
import { hostFilesMount, type EmscriptenFs } from './hostFiles';

export type { Database, SqlJsStatic, SqlValue };

/** sql.js as Braid builds it (scripts/sqlJsBuild.mjs): its file system is handed out, and a Database opens a named file. */
type BraidSqlJs = SqlJsStatic & { braidFS: EmscriptenFs };

/** Where the host's files appear in sql.js's file system. */
const HOST_MOUNT = '/host';

const loaded = new Map<string, Promise<SqlJsStatic>>();

/** What is called before each write and each read of a fenced file (see {@link setFence}). */
export interface Fence {
  /** Throws to refuse a write. */
  beforeWrite(): void;
  /** Told of every read and write (a holder of a long statement's lock shows it is alive). */
  touched(): void;
}

/** Files whose use is fenced, by their host path. */
const fences = new Map<string, Fence>();

/** A host error met on a file, and whether it was reading or writing it. */
export interface HostError {
  readonly action: 'read' | 'write';
  readonly error: NodeJS.ErrnoException;
}

/** The last host error met on a file, by the database file it belongs to (see {@link takeHostError}). */
const hostErrors = new Map<string, HostError>();

/**
 * Loads sql.js once per wasm file and mounts the host's files into its file system. The wasm is
 * read by us and passed as `wasmBinary`. sql.js's code itself is imported here, on first use, so
 * a process that opens no index never runs it.
 */
export function loadSqlJs(wasmPath: string): Promise<SqlJsStatic> {
  let sql = loaded.get(wasmPath);
  if (!sql) {
    const wasmBinary = fs.readFileSync(wasmPath);
    sql = import('sql.js')
      .then(({ default: initSqlJs }) =>
        initSqlJs({ wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) as ArrayBuffer }),
      )
      .then((SQL) => {
        const FS = (SQL as BraidSqlJs).braidFS;
        if (!FS) throw new Error('this sql.js cannot open files in place (it was not bundled with scripts/sqlJsBuild.mjs)');
        FS.mkdir(HOST_MOUNT);
        FS.mount(hostFilesMount(FS, checkFence, noteHostError), { root: path.parse(process.cwd()).root }, HOST_MOUNT);
        return SQL;
      });
    loaded.set(wasmPath, sql);
  }
  return sql;
}

let opened = 0;

/**
 * Opens the SQLite file at `file` in place (created when missing): SQLite reads the pages a query
 * needs and writes the pages a transaction changes, with its rollback journal beside the file.
 * Its locks are not real across processes here (sql.js's file system pretends they succeed), so
 * the caller serialises every use of the file between processes (IndexFile's lock).
 */
export function openInPlace(SQL: SqlJsStatic, file: string): Database {
  const FS = (SQL as BraidSqlJs).braidFS;
  // A link in sql.js's own file system names the file; closing the database removes the link.
  // The folder's real path: SQLite then resolves no host link itself.
  const real = path.join(fs.realpathSync(path.dirname(file)), path.basename(file));
  const link = `braid-db-${++opened}`;
  FS.symlink(path.posix.join(HOST_MOUNT, ...real.split(path.sep).filter(Boolean)), `/${link}`);
  return new SQL.Database(link as unknown as Uint8Array);
}

/**
 * Makes every write to `file` and its journal call `fence.beforeWrite` first, which throws to
 * refuse it, and every read and write call `fence.touched` (undefined `fence`: unfenced again).
 * For the fault tests, BRAID_FAULT_INDEX_WRITES=<errno code> (ENOSPC, EIO) makes every fenced
 * write fail with that code, as a full or failing disk would.
 */
export function setFence(file: string, fence: Fence | undefined): void {
  if (fence) fences.set(file, fence);
  else fences.delete(file);
}

function checkFence(file: string, action: 'read' | 'write'): void {
  const fence = fences.get(file) ?? fences.get(file.replace(/-journal$/, ''));
  if (!fence) return;
  fence.touched();
  if (action === 'read') return;
  fence.beforeWrite();
  const fault = process.env.BRAID_FAULT_INDEX_WRITES;
  if (fault) throw faultError(fault);
}

function noteHostError(file: string, action: 'read' | 'write', error: NodeJS.ErrnoException): void {
  hostErrors.set(file.replace(/-journal$/, ''), { action, error });
}

/**
 * The host error (ENOSPC, EIO...) last met on the database file `file` or its journal, forgotten
 * once taken: SQLite reports such a failure with its own code only ("database or disk is full"),
 * and this says what the file system said.
 */
export function takeHostError(file: string): HostError | undefined {
  const err = hostErrors.get(file);
  hostErrors.delete(file);
  return err;
}

/** Statements prepared once per database, by their SQL text (see runPrepared). */
const prepared = new WeakMap<Database, Map<string, Statement>>();

/**
 * Runs a statement that changes rows, prepared once per database and reused: the writes of an
 * index row run thousands of times in a rebuild, and preparing their SQL each time was a fifth of
 * it (measured). sql.js frees the statements when the database closes.
 */
export function runPrepared(db: Database, sql: string, params: SqlValue[]): void {
  preparedStatement(db, sql).run(params);
}

/** The rowid of the row the last INSERT on `db` made, asked through a statement prepared once (see runPrepared). */
export function lastInsertRowid(db: Database): number {
  const stmt = preparedStatement(db, 'SELECT last_insert_rowid()');
  try {
    stmt.step();
    return Number(stmt.get()[0]);
  } finally {
    stmt.reset();
  }
}

function preparedStatement(db: Database, sql: string): Statement {
  let statements = prepared.get(db);
  if (!statements) prepared.set(db, (statements = new Map()));
  let stmt = statements.get(sql);
  if (!stmt) statements.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}

/** Runs a query and returns its rows as objects, keyed by column name. */
export function queryAll<T>(db: Database, sql: string, params: SqlValue[] = []): T[] {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const names = stmt.getColumnNames();
    const rows: T[] = [];
    while (stmt.step()) {
      const values = stmt.get();
      const row: Record<string, SqlValue> = {};
      for (let i = 0; i < names.length; i++) row[names[i]!] = values[i]!;
      rows.push(row as T);
    }
    return rows;
  } finally {
    stmt.free();
  }
}

/**
 * Runs a query whose one column is a JSON object per row (`json_object(...)`) and returns the
 * objects: each row crosses from sql.js as one string instead of a call per value (about 3 times
 * faster for a page of rows).
 */
export function queryJsonRows<T>(db: Database, sql: string, params: SqlValue[] = []): T[] {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const rows: T[] = [];
    while (stmt.step()) rows.push(JSON.parse(String(stmt.get()[0])) as T);
    return rows;
  } finally {
    stmt.free();
  }
}

/**
 * Reads the file change counter from an SQLite file's header (offset 24), without opening it: a
 * commit in rollback-journal mode increments it, so another process's write shows as a new value.
 * -1 when unreadable.
 */
export function readHeaderChangeCounter(file: string): number {
  return readHeaderWord(file, 24);
}

/** Reads `PRAGMA user_version` straight from an SQLite file's header (offset 60), without loading it. -1 when unreadable. */
export function readHeaderUserVersion(file: string): number {
  return readHeaderWord(file, 60);
}

function readHeaderWord(file: string, offset: number): number {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const header = Buffer.alloc(64);
    if (fs.readSync(fd, header, 0, 64, 0) < 64) return -1;
    if (header.toString('latin1', 0, 15) !== 'SQLite format 3') return -1;
    return header.readUInt32BE(offset);
  } catch {
    return -1;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
