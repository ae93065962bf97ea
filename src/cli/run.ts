import path from 'node:path';
import { errorMessage } from '../core/errors';
import { SessionNotFoundError } from '../core/store/errors';
import { UsageError } from './args';
import { EXIT_ERROR, EXIT_USAGE } from './exitCodes';
import * as sessions from './commands/sessions';
import { search } from './commands/search';
import { show } from './commands/show';
import { where } from './commands/where';
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

export { EXIT_ERROR, EXIT_OK, EXIT_USAGE } from './exitCodes';

type Command = (ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv) => Promise<number>;

/**
 * Each command's module is loaded when it runs (one bundle, but a module's code runs only when
 * first imported): `list`, `search` and `show` do not pay for git, the agent kernel, the model
 * catalogue or the maintenance code.
 */
const COMMANDS: Record<string, Command> = {
  list: sessions.list,
  search,
  show,
  rename: sessions.rename,
  archive: sessions.archive,
  restore: sessions.restore,
  delete: sessions.remove,
  undelete: sessions.undelete,
  export: sessions.exportSession,
  'rebuild-index': (ctx, argv) => import('./commands/maintenance').then((m) => m.rebuildIndex(ctx, argv)),
  doctor: (ctx, argv) => import('./commands/maintenance').then((m) => m.doctor(ctx, argv)),
  storage: (ctx, argv) => import('./commands/storage').then((m) => m.storage(ctx, argv)),
  gc: (ctx, argv) => import('./commands/storage').then((m) => m.gc(ctx, argv)),
  exec: (ctx, argv, env) => import('./commands/exec').then((m) => m.exec(ctx, argv, env)),
  fork: (ctx, argv, env) => import('./commands/forkRewind').then((m) => m.fork(ctx, argv, env)),
  rewind: (ctx, argv) => import('./commands/forkRewind').then((m) => m.rewind(ctx, argv)),
  'undo-rewind': (ctx, argv) => import('./commands/forkRewind').then((m) => m.undo(ctx, argv)),
  finish: (ctx, argv) => import('./commands/worktree').then((m) => m.finish(ctx, argv)),
  'recreate-worktree': (ctx, argv) => import('./commands/worktree').then((m) => m.recreate(ctx, argv)),
  relink: (ctx, argv) => import('./commands/worktree').then((m) => m.relink(ctx, argv)),
  usage: (ctx, argv) => import('./commands/usage').then((m) => m.usage(ctx, argv)),
  setup: (ctx, argv, env) => import('./commands/setup').then((m) => m.setup(ctx, argv, env)),
  import: (ctx, argv, env) => import('./commands/import').then((m) => m.importCommand(ctx, argv, env)),
  mcp: (ctx, argv, env) => import('./commands/mcp').then((m) => m.mcp(ctx, argv, env)),
  memory: (ctx, argv, env) => import('./commands/memory').then((m) => m.memory(ctx, argv, env)),
};

/** Runs one CLI invocation and returns its exit code. Errors print one line (with the stack only under BRAID_DEBUG). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const err = (text: string) => void io.stderr.write(terminalSafe(text));
  try {
    return await dispatch(argv, io);
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

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
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
  switch (command) {
    case 'model':
      return (await import('./commands/model')).showModel(rest, io.env, out, (text) => void io.stderr.write(terminalSafe(text)));
    case 'where':
      return where(rest, { option: dataDirOption, env: io.env, cwd, workspace, out });
    case 'hooks':
      return (await import('./commands/hooks')).hooks(rest, { env: io.env, workspace, out });
    case 'permissions':
      return (await import('./commands/hooks')).permissions(rest, { env: io.env, workspace, out });
    case 'skills':
      return (await import('./commands/skills')).skills(rest, { workspace, env: io.env, out });
  }
  const run = COMMANDS[command];
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
