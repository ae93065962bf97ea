import { SessionStore } from '../core/store/sessionStore';
import type { Logger } from '../core/logger';
import { prepareDataDir } from './dataDir';
import { terminalSafe } from './terminalText';

/** Where the CLI writes: a stream such as process.stdout, or a test's collector. */
export interface TextSink {
  write(text: string): unknown;
}

/** What every command gets: where to write, the data folder, the workspace, and the store on demand. */
export interface CliContext {
  readonly dataDir: string;
  readonly workspace: string;
  readonly logger: Logger;
  /** BRAID_DEBUG is set: errors come with their stack traces. */
  readonly debug: boolean;
  /** Writes to stdout for a terminal: characters a terminal would act on are shown as ⟨U+XXXX⟩. */
  out(text: string): void;
  /** Writes to stdout exactly as given (the raw JSONL export stays byte-exact). */
  outRaw(text: string): void;
  /** Writes to stderr for a terminal, like `out`. */
  err(text: string): void;
  /** Rewrites the current stderr line (a progress count). */
  progress(text: string): void;
  /** Opens the store (creating the data folder first); the caller closes it. */
  openStore(): Promise<SessionStore>;
  /** Opens the store, runs `fn`, saves the index and closes, even when `fn` throws. */
  withStore(fn: (store: SessionStore) => Promise<number>): Promise<number>;
}

export interface ContextOptions {
  readonly dataDir: string;
  readonly workspace: string;
  readonly wasmPath: string;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly verbose: boolean;
  readonly debug: boolean;
}

/** The first line of a message; the rest (a stack trace) only with BRAID_DEBUG. */
export function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

export function createContext(options: ContextOptions): CliContext {
  const err = (text: string) => void options.stderr.write(terminalSafe(text));
  const logger: Logger = {
    trace: () => {},
    info: (m) => options.verbose && err(`braid: ${m}\n`),
    warn: (m) => err(`braid: warning: ${m}\n`),
    error: (m) => err(`braid: error: ${options.debug ? m : firstLine(m)}\n`),
  };
  const openStore = async () => {
    prepareDataDir(options.dataDir);
    return SessionStore.open({ root: options.dataDir, wasmPath: options.wasmPath, logger, saveDelayMs: 0 });
  };
  return {
    dataDir: options.dataDir,
    workspace: options.workspace,
    logger,
    debug: options.debug,
    out: (text) => void options.stdout.write(terminalSafe(text)),
    outRaw: (text) => void options.stdout.write(text),
    err,
    progress: (text) => void options.stderr.write(`\r${terminalSafe(text)}`),
    openStore,
    async withStore(fn) {
      const store = await openStore();
      let code: number;
      try {
        code = await fn(store);
      } catch (error) {
        await store.close().catch(() => undefined); // the command's own error is the one to report
        throw error;
      }
      await store.close();
      return code;
    },
  };
}
