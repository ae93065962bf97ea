// A new process that does what a VS Code window does on activation: loads the extension bundle
// (dist/extension.js, with a stand-in `vscode` module; nothing of it runs before activate), opens
// the store for its workspace (sql.js started, that workspace's index opened) and reads the first
// page of the Sessions view; it prints how long that took from before the bundle's load (an
// extension host's Node is already running) and is also timed from outside.
// Usage: node firstPage.cjs <store root> <workspace folder> <sql-wasm.wasm> <extension bundle>
import Module from 'node:module';
import path from 'node:path';
import { silentLogger } from '../../src/core/logger';
import { SessionStore } from '../../src/core/store/sessionStore';
import { workspaceKey } from '../../src/core/workspace/workspaceKey';

type Resolver = { _resolveFilename: (request: string, ...rest: unknown[]) => string };

function loadExtensionBundle(bundle: string): void {
  const loader = Module as unknown as Resolver;
  const resolve = loader._resolveFilename;
  const stub = path.join(path.dirname(bundle), '__vscode_stub__.js');
  loader._resolveFilename = (request: string, ...rest: unknown[]) => (request === 'vscode' ? stub : resolve(request, ...rest));
  require.cache[stub] = { id: stub, filename: stub, loaded: true, exports: {} } as NodeJS.Module;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle must load as CommonJS, through the stub just put in require.cache
  require(bundle);
}

async function main(): Promise<void> {
  const [root, workspaceDir, wasmPath, bundle] = process.argv.slice(2);
  const started = process.hrtime.bigint(); // activation: Node and this program are running, as an extension host is
  loadExtensionBundle(bundle!);
  const key = workspaceKey(workspaceDir!);
  const store = await SessionStore.open({ root: root!, wasmPath: wasmPath!, logger: silentLogger, workspaceKey: key, watch: true });
  const rows = store.index.list({ workspaceKey: key, limit: 50 });
  process.stdout.write(`${rows.length} rows in ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)} ms\n`);
  await store.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
