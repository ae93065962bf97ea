import fs from 'node:fs';
import path from 'node:path';
import { loadSqlJs, type SqlJsStatic } from '../../src/core/index/sqlite';
import { repoRoot, tempDir, wasmPath } from './store';

export const IMPORT_FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'import');
/** Sessions written by the tools themselves (`npm run fixtures:import`; see its README.md). */
export const REAL_IMPORT_FIXTURES = path.join(IMPORT_FIXTURES, 'real');
/** What stands for the folder a fixture's session was recorded in. */
export const WORKSPACE_PLACEHOLDER = '__WORKSPACE__';

/** A copy of fixtures whose sessions were recorded in `workspace`; `cleanup` removes it. */
export interface ImportSources {
  readonly sources: string;
  readonly workspace: string;
  readonly cleanup: () => void;
}

/**
 * A copy of the hand-written import fixtures (all but `real/`) whose sessions were recorded in
 * `workspace` (a real folder, made when not given, with notes.md in it).
 */
export function importSources(inWorkspace?: string): ImportSources {
  const copy = newCopy(inWorkspace);
  copyReplacing(IMPORT_FIXTURES, copy.sources, copy.workspace, new Set([REAL_IMPORT_FIXTURES]));
  return copy;
}

/**
 * A copy of the fixtures the tools wrote themselves (`real/`, one folder per tool), recorded in
 * `workspace`. Text files get the workspace in place of the placeholder byte for byte; an SQLite
 * database (`.db`) gets it through SQL (see {@link replaceInDatabase}), except one copied live
 * with its `-wal`: rewriting the main file would no longer match the pages its WAL holds, so such
 * a pair (and its `-shm`) is copied as it is, with the paths it was recorded in.
 */
export async function realImportSources(inWorkspace?: string): Promise<ImportSources> {
  const copy = newCopy(inWorkspace);
  const databases = copyReplacing(REAL_IMPORT_FIXTURES, copy.sources, copy.workspace, new Set());
  if (databases.length) {
    const SQL = await loadSqlJs(wasmPath);
    for (const db of databases) fs.writeFileSync(db, replaceInDatabase(SQL, fs.readFileSync(db), [[WORKSPACE_PLACEHOLDER, jsonEscaped(copy.workspace)]]));
  }
  return copy;
}

function newCopy(inWorkspace: string | undefined): ImportSources {
  const root = tempDir('braid-import-');
  const workspace = inWorkspace ?? path.join(root, 'workspace');
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'notes.md'), 'one\ntwo\n');
  return { sources: path.join(root, 'sources'), workspace, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** The path as it stands inside a JSON string (the same on POSIX; a Windows path doubles its backslashes). */
function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** Copies `from` into `to` with the placeholder replaced; returns the copied databases that still need it. */
function copyReplacing(from: string, to: string, workspace: string, skip: ReadonlySet<string>): string[] {
  fs.mkdirSync(to, { recursive: true });
  const databases: string[] = [];
  const names = new Set(fs.readdirSync(from));
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (skip.has(src)) continue;
    if (entry.isDirectory()) databases.push(...copyReplacing(src, dst, workspace, skip));
    else if (isSqliteFile(entry.name)) {
      fs.copyFileSync(src, dst);
      if (entry.name.endsWith('.db') && !names.has(`${entry.name}-wal`)) databases.push(dst);
    } else fs.writeFileSync(dst, replacePlaceholder(fs.readFileSync(src), workspace));
  }
  return databases;
}

function isSqliteFile(name: string): boolean {
  return name.endsWith('.db') || name.endsWith('.db-wal') || name.endsWith('.db-shm');
}

/** Byte-exact except for the placeholder (the hostile files hold bytes that are not UTF-8). */
function replacePlaceholder(bytes: Buffer, workspace: string): Buffer {
  const marker = Buffer.from(WORKSPACE_PLACEHOLDER);
  const parts: Buffer[] = [];
  let at = 0;
  for (let i = bytes.indexOf(marker); i !== -1; i = bytes.indexOf(marker, at)) {
    parts.push(bytes.subarray(at, i), Buffer.from(jsonEscaped(workspace)));
    at = i + marker.length;
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}

/**
 * The SQLite database `bytes` with every text value of every table changed by SQL's replace()
 * for each pair in turn, vacuumed and exported again. A database in WAL mode (header bytes 18 and 19 are 2) is
 * edited as a rollback-journal one, which sql.js's in-memory files can hold, and marked WAL
 * again, as the tool left it.
 */
export function replaceInDatabase(SQL: SqlJsStatic, bytes: Uint8Array, pairs: ReadonlyArray<readonly [string, string]>): Uint8Array {
  const wal = bytes[18] === 2 && bytes[19] === 2;
  const input = Uint8Array.from(bytes);
  if (wal) input[18] = input[19] = 1;
  const db = new SQL.Database(input);
  try {
    const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")[0]?.values ?? [];
    for (const [table] of tables) {
      const quoted = `"${String(table).replace(/"/g, '""')}"`;
      const columns = db.exec(`PRAGMA table_info(${quoted})`)[0]?.values ?? [];
      for (const column of columns) {
        const name = `"${String(column[1]).replace(/"/g, '""')}"`;
        for (const [from, to] of pairs) {
          db.run(`UPDATE ${quoted} SET ${name} = replace(${name}, ?, ?) WHERE typeof(${name}) = 'text' AND instr(${name}, ?) > 0`, [from, to, from]);
        }
      }
    }
    db.run('VACUUM'); // the old texts stay in freed pages otherwise
    const out = db.export();
    if (wal) out[18] = out[19] = 2;
    return out;
  } finally {
    db.close();
  }
}
