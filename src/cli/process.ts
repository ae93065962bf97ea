// dist/cli-commands.js: every command, run as this process.
import { runProcess } from './processRun';
import { runCli } from './run';

/** Runs the CLI as this process: its arguments, stdio and environment; the exit code becomes the process's. */
export function runAsProcess(options: { wasmPath?: string } = {}): Promise<void> {
  return runProcess(runCli, options);
}
