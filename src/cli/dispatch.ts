// One CLI invocation run against a table of commands: the quick answers, the global options, the
// data folder and the context a command is given, and errors told in one line. The full table is
// ./run's; ./readCommands has the commands that only read, in a bundle of their own.
import path from 'node:path';
import { errorMessage } from '../core/errors';
import { SessionNotFoundError } from '../core/store/errors';
import { UsageError } from './args';
import { EXIT_ERROR, EXIT_USAGE } from './exitCodes';
import { createContext, firstLine, type CliContext } from './context';
import { chooseDataDir } from './dataDirChoice';
import { ListedError } from './listedError';
import type { Terminal } from './picker/terminalPicker';
import { quickAnswer, splitInvocation } from './quickAnswer';
import { oneLine, terminalSafe } from './terminalText';

/** Where the CLI writes, and what it reads; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** sql.js's wasm; the built CLI finds it next to itself. */
  readonly wasmPath?: string;
  /** The terminal the user types in, when stdin and stderr are one: pickers need it. */
  readonly terminal?: Terminal;
}

/** A command of the store: given the context (data folder, workspace, output), its arguments and the environment. */
export type StoreCommand = (ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv) => Promise<number>;

/** What a command without a store is given: the invocation's folders and output. */
export interface PlainInput {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly workspace: string;
  /** --data-dir, as given. */
  readonly dataDirOption: string | undefined;
  out(text: string): void;
  err(text: string): void;
}

/** A command that opens no store (where, model, hooks, ...). */
export type PlainCommand = (argv: readonly string[], input: PlainInput) => number | Promise<number>;

/** The commands one CLI bundle can run. */
export interface CommandTable {
  readonly plain: Readonly<Record<string, PlainCommand>>;
  readonly store: Readonly<Record<string, StoreCommand>>;
}

/** Runs one CLI invocation with `table`'s commands and returns its exit code. Errors print one line (with the stack only under BRAID_DEBUG). */
export async function runCommands(table: CommandTable, argv: readonly string[], io: CliIo): Promise<number> {
  const err = (text: string) => void io.stderr.write(terminalSafe(text));
  try {
    return await dispatch(table, argv, io);
  } catch (e) {
    if (e instanceof UsageError) {
      err(`braid: ${e.message}; run "braid help" for usage\n`);
      return EXIT_USAGE;
    }
    const message = errorMessage(e);
    err(`braid: ${firstLine(message)}\n`);
    if (e instanceof ListedError) for (const detail of e.details) err(`  ${oneLine(detail)}\n`);
    if (!(e instanceof SessionNotFoundError) && io.env.BRAID_DEBUG) err(`${(e as Error).stack ?? ''}\n`);
    return e instanceof ListedError ? e.exitCode : EXIT_ERROR;
  }
}

async function dispatch(table: CommandTable, argv: readonly string[], io: CliIo): Promise<number> {
  const invocation = splitInvocation(argv);
  const out = (text: string) => void io.stdout.write(terminalSafe(text));
  const answer = quickAnswer(invocation);
  if (answer) {
    out(answer.text);
    return answer.code;
  }
  const { globals: global, rest } = invocation;
  const command = invocation.command!; // no command at all is answered above, with the general help
  const cwd = io.cwd ?? process.cwd();
  const workspace = path.resolve(cwd, (global.options.get('workspace') as string | undefined) ?? '.');
  const dataDirOption = global.options.get('data-dir') as string | undefined;
  const plain = table.plain[command];
  if (plain) return plain(rest, { env: io.env, cwd, workspace, dataDirOption, out, err: (text) => void io.stderr.write(terminalSafe(text)) });
  const run = table.store[command];
  if (!run) throw new UsageError(`unknown command "${command}"`);
  const dataDir = chooseDataDir(dataDirOption, io.env, cwd);
  // Which folder was found is braid where's to say (and an ambiguous one is an error): every
  // command repeating it would bury what the command itself says. --verbose asks for it.
  if (dataDir.note && global.options.has('verbose')) io.stderr.write(`braid: ${oneLine(dataDir.note)}\n`);
  const ctx = createContext({
    dataDir,
    workspace,
    wasmPath: io.wasmPath ?? path.join(__dirname, 'sql-wasm.wasm'),
    stdout: io.stdout,
    stderr: io.stderr,
    verbose: global.options.has('verbose'),
    debug: Boolean(io.env.BRAID_DEBUG),
    ...(io.terminal ? { terminal: io.terminal } : {}),
  });
  return run(ctx, rest, io.env);
}
