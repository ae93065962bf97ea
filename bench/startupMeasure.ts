// The startup bench's measurements (bench/startup.ts), each run in a fresh child process of
// bench/run.ts (`--startup-child KIND ARGS`) so its time includes a cold load and its peak memory
// is its own: loading dist/extension.js alone, and an activation (the bundle loaded, the store
// opened as src/extension.ts opens it, the first page listed).
import path from 'node:path';
import Module from 'node:module';
import { silentLogger } from '../src/core/logger';
import { SessionStore } from '../src/core/store/sessionStore';
import { workspaceKey } from '../src/core/workspace/workspaceKey';
import { timed, type Measured } from './memory';

/** Loads the built extension bundle with a stand-in `vscode` module (nothing of it runs before activate). */
function loadExtensionBundle(bundle: string): void {
  const resolver = Module as unknown as { _resolveFilename: (r: string, ...a: unknown[]) => string };
  const resolve = resolver._resolveFilename;
  const stub = path.join(path.dirname(bundle), '__vscode_stub__.js');
  resolver._resolveFilename = (request: string, ...rest: unknown[]) => (request === 'vscode' ? stub : resolve(request, ...rest));
  require.cache[stub] = { id: stub, filename: stub, loaded: true, exports: {} } as NodeJS.Module;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle must load as CommonJS, through the stub just put in require.cache
  require(bundle);
}

/** Runs one startup measurement: `bundle-load BUNDLE` or `activation STORE BUNDLE`. */
export async function startupMeasure(kind: string, args: readonly string[], wasmPath: string): Promise<Measured> {
  const [target, bundle] = args;
  if (kind === 'bundle-load') return timed(1, () => loadExtensionBundle(target!));
  if (kind !== 'activation') throw new Error(`unknown startup measurement ${kind}`);
  return timed(1, async () => {
    loadExtensionBundle(bundle!);
    // As src/extension.ts opens it: this workspace's index now, the others' when a view asks.
    const key = workspaceKey('/bench/workspace-7');
    const store = await SessionStore.open({ root: target!, wasmPath, logger: silentLogger, workspaceKey: key, watch: true, verifyAfterMs: 5_000 });
    store.index.list({ workspaceKey: key, limit: 50 });
    await store.close();
  });
}
