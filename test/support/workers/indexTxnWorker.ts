// A process that dies inside a transaction on an index file used in place: it opens the file,
// writes more rows than SQLite's page cache holds (so pages reach the file, the originals in the
// journal) and kills itself before COMMIT. Usage: node indexTxnWorker.cjs <index.sqlite> <sql-wasm.wasm>
import { loadSqlJs, openInPlace } from '../../../src/core/index/sqlite';

async function main(): Promise<void> {
  const [file, wasmPath] = process.argv.slice(2);
  const SQL = await loadSqlJs(wasmPath!);
  const db = openInPlace(SQL, file!);
  db.run('PRAGMA journal_mode = TRUNCATE');
  db.run('PRAGMA cache_size = 1');
  db.run('BEGIN');
  for (let i = 0; i < 2000; i++) db.run('INSERT INTO meta(key, value) VALUES (?, ?)', [`uncommitted ${i}`, 'x'.repeat(200)]);
  process.kill(process.pid, 'SIGKILL');
}

void main();
