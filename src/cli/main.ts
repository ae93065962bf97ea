// The `braid` command (dist/cli.js). `version` and `help` are answered here. The read-only commands
// (list, search, show, where) load dist/cli-read.js, the store and the index without the agent kernel
// (built from ./readProcess); every other command loads the commands with the core, sql.js and the
// kernel (dist/cli-commands.js, built from ./process: see scripts/lazyBundles.mjs).
import nodeModule from 'node:module';
import { errorMessage } from '../core/errors';
import { commandOf } from './processRun';
import { quickAnswer, splitInvocation, type QuickAnswer } from './quickAnswer';
import { READ_ONLY_COMMANDS } from './readOnly';
import { terminalSafe } from './terminalText';

/** The quick answer, if the arguments ask for one; a usage error is left to the full CLI, which reports it. */
function quickAnswerOf(argv: readonly string[]): QuickAnswer | undefined {
  try {
    return quickAnswer(splitInvocation(argv));
  } catch {
    return undefined;
  }
}

const answer = quickAnswerOf(process.argv.slice(2));
if (answer) {
  process.stdout.write(terminalSafe(answer.text));
  process.exitCode = answer.code;
} else {
  // Node 22.1 and later keep V8's compiled code of the commands' bundle (megabytes of JavaScript) in
  // the temp folder, checked against the file, so a fresh command does not compile it again
  // (NODE_DISABLE_COMPILE_CACHE turns it off). Earlier versions have no such cache.
  (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const readOnly = READ_ONLY_COMMANDS.has(commandOf(process.argv.slice(2)) ?? '');
  (readOnly ? import('./readProcess') : import('./process')).then(
    ({ runAsProcess }) => runAsProcess(),
    (err: unknown) => {
      process.stderr.write(terminalSafe(`braid: cannot load its commands: ${errorMessage(err)}\n`));
      process.exitCode = 1;
    },
  );
}
