import { errorMessage } from '../core/errors';
import { runCli } from './run';
import { terminalSafe } from './terminalText';

/** Runs the CLI as this process: its arguments, stdio and environment; the exit code becomes the process's. */
export function runAsProcess(options: { wasmPath?: string } = {}): Promise<void> {
  return runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, ...options }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(terminalSafe(`braid: ${errorMessage(err)}\n`));
      process.exitCode = 1;
    },
  );
}
