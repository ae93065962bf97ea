import { ENV_NAMES, ModelConfigError, resolveModel } from '../core/model/modelSettings';
import { modelSettingsFromEnv } from './env';

/** Where the CLI writes, and what it reads; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: NodeJS.ProcessEnv;
}

/** Exit codes: 0 ok, 1 error with a one-line message, 2 bad usage. */
export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;

declare const BRAID_VERSION: string | undefined;

const USAGE = `Usage: braid <command> [options]

Commands:
  model        show the model the environment configures (BRAID_PROVIDER, BRAID_MODEL, BRAID_BASE_URL)
  version      print Braid's version
  help         show this help

Session commands (list, show, exec, fork, rewind, export, doctor) arrive with the session store.
`;

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.stdout.write(USAGE);
      return command === undefined ? EXIT_USAGE : EXIT_OK;
    case 'version':
    case '--version':
      io.stdout.write(`${typeof BRAID_VERSION === 'string' ? BRAID_VERSION : 'dev'}\n`);
      return EXIT_OK;
    case 'model':
      return showModel(rest, io);
    default:
      io.stderr.write(`braid: unknown command "${command}"; run "braid help" for the list\n`);
      return EXIT_USAGE;
  }
}

function showModel(args: readonly string[], io: CliIo): number {
  const json = args.includes('--json');
  const unknown = args.filter((a) => a !== '--json');
  if (unknown.length > 0) {
    io.stderr.write(`braid model: unexpected argument "${unknown[0]}"\n`);
    return EXIT_USAGE;
  }
  const settings = modelSettingsFromEnv(io.env);
  try {
    const model = resolveModel(settings, ENV_NAMES);
    const summary = { provider: model.provider, id: model.id, api: model.api, baseUrl: model.baseUrl, contextWindow: model.contextWindow };
    io.stdout.write(json ? `${JSON.stringify(summary)}\n` : `${summary.provider} ${summary.id} (${summary.api}, ${summary.baseUrl})\n`);
    return EXIT_OK;
  } catch (err) {
    if (!(err instanceof ModelConfigError)) throw err;
    io.stderr.write(`braid: ${err.message}\n`);
    return EXIT_ERROR;
  }
}
