const t0 = performance.now();
const mark = (l: string) => process.stderr.write(`${(performance.now() - t0).toFixed(1)} ${l}\n`);
import { loadSqlJs, openInPlace } from '../src/core/index/sqlite';
import { wasmPath } from './support/store';
process.on('beforeExit', () => mark('beforeExit'));
(async () => {
  if (process.env.LIFTOFF) (await import('node:v8')).setFlagsFromString('--liftoff-only');
  const SQL = await loadSqlJs(wasmPath);
  mark('loaded');
  if (process.argv[2] === 'open') {
    const db = openInPlace(SQL, '/tmp/smoke/z.sqlite');
    db.exec('SELECT 1');
    db.close();
    mark('used');
  }
  if (process.argv[2] === 'mem') {
    const db = new SQL.Database();
    db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (1)');
    db.close();
    mark('used mem');
    const p = process as unknown as { _getActiveHandles(): unknown[]; _getActiveRequests(): unknown[] };
    console.error(
      p._getActiveHandles().map((h) => (h as object).constructor.name),
      p._getActiveRequests().map((h) => (h as object).constructor.name),
    );
    setImmediate(() => mark('immediate'));
    setTimeout(() => mark('timeout0'), 0);
  }
})();
