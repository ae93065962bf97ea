import path from 'node:path';
import { SessionStore } from '../src/core/store/sessionStore';
import { silentLogger } from '../src/core/logger';
import { loadSqlJs } from '../src/core/index/sqlite';
import { workspaceKey } from '../src/core/workspace/workspaceKey';
const wasmPath = path.resolve('node_modules/sql.js/dist/sql-wasm.wasm');
async function main() {
  const base = '/tmp/braid-bench-cache/g3';
  const root = `${base}/200-sessions-10-workspaces-20-turns/store`;
  const key = workspaceKey(`${base}/workspaces/workspace-7`);
  let t = process.hrtime.bigint();
  await loadSqlJs(wasmPath);
  console.log('sqljs', Number(process.hrtime.bigint() - t) / 1e6);
  for (let i = 0; i < 3; i++) {
    t = process.hrtime.bigint();
    const store = await SessionStore.open({ root, wasmPath, logger: silentLogger, workspaceKey: key });
    console.log('open', Number(process.hrtime.bigint() - t) / 1e6);
    await store.close();
  }
}
void main();
