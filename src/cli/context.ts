import { SessionStore } from '../core/store/sessionStore';
import { workspaceKey } from '../core/workspace/workspaceKey';
import type { Logger } from '../core/logger';
import type { Terminal } from './picker/terminalPicker';
import { holdsStore, prepareDataDir } from './dataDir';
import { sourceName, type DataDirChoice } from './dataDirChoice';
import { jsonText, oneLine, terminalSafe } from './terminalText';

/** Where the CLI writes: a stream such as process.stdout, or a test's collector. */
export interface TextSink {
  write(text: string): unknown;
}

/** What every command gets: where to write, the data folder, the workspace, and the store on demand. */
export interface CliContext {
  /** sql.js's wasm (the index, and databases an import reads). */
  readonly wasmPath: string;
  readonly dataDir: string;
  readonly workspace: string;
  readonly logger: Logger;
  /** BRAID_DEBUG is set: errors come with their stack traces. */
  readonly debug: boolean;
  /** The terminal the user types in (stdin and stderr are one); absent in a pipe or a script. */
  readonly terminal?: Terminal;
  /** Writes to stdout for a terminal: characters a terminal would act on are shown as ⟨U+XXXX⟩. */
  out(text: string): void;
  /** Writes to stdout exactly as given (the raw JSONL export stays byte-exact). */
  outRaw(text: string): void;
  /** Writes to stderr for a terminal, like `out`. */
  err(text: string): void;
  /** Rewrites the current stderr line (a progress count). */
  progress(text: string): void;
  /** True when the data folder holds a store; commands that only read create none. */
  hasStore(): boolean;
  /** The data folder and how it was chosen, for messages: "<folder> (VS Code's folder for Braid)". */
  dataDirText(): string;
  /**
   * Opens the store; the caller closes it. With `create` (a command that writes a new session)
   * the data folder is created first; without, a missing store is a NoStoreError and nothing is created.
   */
  openStore(options?: { create?: boolean }): Promise<SessionStore>;
  /** Opens an existing store (NoStoreError when there is none), runs `fn`, saves the index and closes, even when `fn` throws. */
  withStore(fn: (store: SessionStore) => Promise<number>): Promise<number>;
}

/** A command that needs sessions met a data folder without a store; nothing was created. */
export class NoStoreError extends Error {
  override readonly name = 'NoStoreError';
}

export interface ContextOptions {
  readonly dataDir: DataDirChoice;
  readonly workspace: string;
  readonly wasmPath: string;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly verbose: boolean;
  readonly debug: boolean;
  readonly terminal?: Terminal;
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
  const dataDir = options.dataDir.dir;
  const hasStore = () => holdsStore(dataDir);
  const dataDirText = () => `${oneLine(dataDir)} (${sourceName(options.dataDir.source)})`;
  const openStore = async (open: { create?: boolean } = {}) => {
    if (!open.create && !hasStore())
      throw new NoStoreError(`there is no Braid data in ${dataDirText()}; pick the folder with --data-dir or BRAID_HOME (braid where shows how it is chosen)`);
    prepareDataDir(dataDir);
    // A one-shot command saves the index when it closes the store, or a second after its first
    // change in a long run: never between a prompt and its first token.
    return SessionStore.open({ root: dataDir, wasmPath: options.wasmPath, logger, saveDelayMs: 1000, workspaceKey: workspaceKey(options.workspace) });
  };
  return {
    dataDir,
    wasmPath: options.wasmPath,
    workspace: options.workspace,
    logger,
    debug: options.debug,
    ...(options.terminal ? { terminal: options.terminal } : {}),
    out: (text) => void options.stdout.write(terminalSafe(text)),
    outRaw: (text) => void options.stdout.write(text),
    err,
    progress: (text) => void options.stderr.write(`\r${terminalSafe(text)}`),
    hasStore,
    dataDirText,
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

/**
 * What a command that only reads says when the data folder holds no store (it creates none):
 * `what` and the folder on stdout, exit 0; with `--json`, the empty result on stdout and the
 * line on stderr.
 */
export function reportNoStore(ctx: CliContext, what: string, json?: { empty: unknown }): number {
  const line = `${what}: there is no Braid data in ${ctx.dataDirText()}`;
  if (json) {
    ctx.out(`${jsonText(json.empty, 2)}\n`);
    ctx.err(`braid: ${line}\n`);
  } else {
    ctx.out(`${line}; --data-dir or BRAID_HOME picks another (braid where says how it was chosen).\n`);
  }
  return 0;
}
