import fs from 'node:fs';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';

export type { Database, SqlJsStatic, SqlValue };

const loaded = new Map<string, Promise<SqlJsStatic>>();

/**
 * Loads sql.js once per wasm file. The wasm is read by us and passed as `wasmBinary`. sql.js's
 * code itself is imported here, on first use, so a process that opens no index never runs it.
 */
export function loadSqlJs(wasmPath: string): Promise<SqlJsStatic> {
  let sql = loaded.get(wasmPath);
  if (!sql) {
    const wasmBinary = fs.readFileSync(wasmPath);
    sql = import('sql.js').then(({ default: initSqlJs }) =>
      initSqlJs({ wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) as ArrayBuffer }),
    );
    loaded.set(wasmPath, sql);
  }
  return sql;
}

/** Runs a query and returns its rows as objects. */
export function queryAll<T>(db: Database, sql: string, params: SqlValue[] = []): T[] {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const rows: T[] = [];
    while (stmt.step()) rows.push(stmt.getAsObject() as T);
    return rows;
  } finally {
    stmt.free();
  }
}

/** Reads `PRAGMA user_version` straight from an SQLite file's header (offset 60), without loading it. -1 when unreadable. */
export function readHeaderUserVersion(file: string): number {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const header = Buffer.alloc(64);
    if (fs.readSync(fd, header, 0, 64, 0) < 64) return -1;
    if (header.toString('latin1', 0, 15) !== 'SQLite format 3') return -1;
    return header.readUInt32BE(60);
  } catch {
    return -1;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
