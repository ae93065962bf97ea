import v8 from 'node:v8';
import { errorMessage } from '../core/errors';
import { runCli } from './run';
import { terminalSafe } from './terminalText';

/**
 * Runs the CLI as this process: its arguments, stdio and environment; the exit code becomes the
 * process's. sql.js's wasm runs on V8's baseline compiler only (Liftoff): a CLI command asks the
 * index a few small questions, and V8's optimizing tier would recompile SQLite's hot functions
 * after them, keeping the process from exiting for 80 to 200 ms (measured) to gain nothing.
 */
export function runAsProcess(options: { wasmPath?: string } = {}): Promise<void> {
  v8.setFlagsFromString('--liftoff-only');
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
