// dist/cli-read.js: the read-only commands (./readCommands), run as this process.
import { runProcess } from './processRun';
import { runReadCli } from './readCommands';

/** Runs a read-only command as this process: its arguments, stdio and environment; the exit code becomes the process's. */
export function runAsProcess(options: { wasmPath?: string } = {}): Promise<void> {
  return runProcess(runReadCli, options);
}
