import { parseArgs, UsageError, type ParsedArgs } from './args';
import { EXIT_OK, EXIT_USAGE } from './exitCodes';
import { asksForHelp, commandHelp, generalHelp, helpTopics } from './help';

declare const BRAID_VERSION: string | undefined;

/** An invocation split at its command: the global options before it, the command, the command's arguments. */
export interface Invocation {
  readonly globals: ParsedArgs;
  readonly command: string | undefined;
  readonly rest: readonly string[];
}

/** What the CLI prints on stdout, and its exit code. */
export interface QuickAnswer {
  readonly text: string;
  readonly code: number;
}

const GLOBAL_OPTIONS = ['--data-dir', '--workspace', '--verbose'];

/** Splits `argv` at the command: global options come before it. */
export function splitInvocation(argv: readonly string[]): Invocation {
  let i = 0;
  const globals: string[] = [];
  while (i < argv.length && argv[i]!.startsWith('--') && GLOBAL_OPTIONS.some((g) => argv[i] === g || argv[i]!.startsWith(`${g}=`))) {
    globals.push(argv[i]!);
    if (!argv[i]!.includes('=') && argv[i] !== '--verbose') globals.push(argv[++i] ?? '');
    i++;
  }
  const [command, ...rest] = argv.slice(i);
  return { globals: parseArgs(globals, { valued: ['data-dir', 'workspace'], flags: ['verbose'] }), command, rest };
}

/**
 * The answer to `version` and `help` (and to no command at all), which need nothing but this
 * file's imports: dist/cli.js gives it without loading the commands' bundle. Undefined for every
 * other command.
 */
export function quickAnswer({ command, rest }: Invocation): QuickAnswer | undefined {
  if (command === undefined) return { text: generalHelp(), code: EXIT_USAGE };
  if (command === 'help' || command === '--help' || command === '-h') return help(asksForHelp(rest) ? ['help'] : rest);
  if (helpTopics().includes(command) && asksForHelp(rest)) return help([command]);
  if (command === 'version' || command === '--version') return { text: `${typeof BRAID_VERSION === 'string' ? BRAID_VERSION : 'dev'}\n`, code: EXIT_OK };
  return undefined;
}

/** `help [<command>]`: every command, or one command's usage and options. */
function help(argv: readonly string[]): QuickAnswer {
  if (argv.length === 0) return { text: generalHelp(), code: EXIT_OK };
  if (argv.length > 1) throw new UsageError(`help takes one command, not "${argv.join(' ')}"`);
  const text = commandHelp(argv[0]!);
  if (!text) throw new UsageError(`there is no command "${argv[0]}"`);
  return { text, code: EXIT_OK };
}
