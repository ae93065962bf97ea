import { loadSqlJs, queryAll, type Database, type SqlValue } from '../index/sqlite';
import { readSnapshot, SnapshotError } from './sqliteSnapshot';
import { SourceRefusedError } from '../fs/sourceFile';

/** A source database is read whole into memory: larger ones are refused with this limit named. */
const MAX_DATABASE_BYTES = 2 * 1024 ** 3;

/**
 * The SQLite databases an import reads (opencode's `opencode.db`), each opened once as a
 * consistent in-memory copy (its WAL included; the file itself is never opened for writing) and
 * closed when the import ends.
 */
export class SourceDatabases {
  private readonly open = new Map<string, Promise<Database>>();

  /** `wasmPath`: sql.js's wasm, which Braid ships; without it a database is refused, saying so. */
  constructor(private readonly wasmPath: string | undefined) {}

  /** The rows a query of database `file` returns, as objects. */
  async query<T>(file: string, sql: string, params: SqlValue[] = []): Promise<T[]> {
    return queryAll<T>(await this.database(file), sql, params);
  }

  private database(file: string): Promise<Database> {
    let db = this.open.get(file);
    if (!db) {
      db = this.load(file);
      this.open.set(file, db);
    }
    return db;
  }

  private async load(file: string): Promise<Database> {
    if (!this.wasmPath) throw new SourceRefusedError('a database, and this import was started without SQLite');
    const SQL = await loadSqlJs(this.wasmPath);
    let bytes: Uint8Array;
    try {
      bytes = readSnapshot(file, MAX_DATABASE_BYTES);
    } catch (err) {
      throw err instanceof SnapshotError ? new SourceRefusedError(err.message) : err;
    }
    try {
      return new SQL.Database(bytes);
    } catch (err) {
      throw new SourceRefusedError(`not a readable SQLite database (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  /** Closes every database opened (their memory goes with them). */
  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    for (const db of all) {
      try {
        (await db).close();
      } catch {
        // one that failed to open has nothing to close
      }
    }
  }
}
