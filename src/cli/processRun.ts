import v8 from 'node:v8';
import { errorMessage } from '../core/errors';
import type { CliIo } from './dispatch';
import { splitInvocation } from './quickAnswer';
import { terminalSafe } from './terminalText';

/** The commands that work the index hard (every session folder read into it, every row checked): sql.js's code optimized pays off there. */
const INDEX_HEAVY = new Set(['rebuild-index', 'doctor']);

/**
 * Runs `run` as this process: its arguments, stdio and environment; the exit code becomes the
 * process's. Except for the index-heavy commands, sql.js's wasm runs on V8's baseline compiler
 * only (Liftoff): a command asks the index a few small questions, and V8's optimizing tier would
 * recompile SQLite's hot functions after them, keeping the process from exiting for 80 to 200 ms
 * (measured) to gain nothing.
 */
export function runProcess(run: (argv: readonly string[], io: CliIo) => Promise<number>, options: { wasmPath?: string } = {}): Promise<void> {
  if (!INDEX_HEAVY.has(commandOf(process.argv.slice(2)) ?? '')) v8.setFlagsFromString('--liftoff-only');
  // A picker needs keys from a terminal and a terminal to draw on: stdin and stderr (stdout may be piped).
  const terminal = process.stdin.isTTY && process.stderr.isTTY ? { terminal: { input: process.stdin, output: process.stderr } } : {};
  return run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, ...terminal, ...options }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(terminalSafe(`braid: ${errorMessage(err)}\n`));
      process.exitCode = 1;
    },
  );
}

/** The command an invocation names, if its arguments can be read (a usage error is the CLI's to report). */
export function commandOf(argv: readonly string[]): string | undefined {
  try {
    return splitInvocation(argv).command;
  } catch {
    return undefined;
  }
}
