import { SessionStore } from '../core/store/sessionStore';
import type { Logger } from '../core/logger';

/** What every command gets: where to write, the data folder, the workspace, and the store on demand. */
export interface CliContext {
  readonly dataDir: string;
  readonly workspace: string;
  readonly logger: Logger;
  out(text: string): void;
  err(text: string): void;
  /** Opens the store, runs `fn`, saves the index and closes, even when `fn` throws. */
  withStore(fn: (store: SessionStore) => Promise<number>): Promise<number>;
}

export function createContext(options: { dataDir: string; workspace: string; wasmPath: string; out: (t: string) => void; err: (t: string) => void; verbose: boolean }): CliContext {
  const logger: Logger = {
    trace: () => {},
    info: (m) => options.verbose && options.err(`braid: ${m}\n`),
    warn: (m) => options.err(`braid: warning: ${m}\n`),
    error: (m) => options.err(`braid: error: ${m}\n`),
  };
  return {
    dataDir: options.dataDir,
    workspace: options.workspace,
    logger,
    out: options.out,
    err: options.err,
    async withStore(fn) {
      const store = await SessionStore.open({ root: options.dataDir, wasmPath: options.wasmPath, logger, saveDelayMs: 0 });
      try {
        return await fn(store);
      } finally {
        await store.close();
      }
    },
  };
}
