// The `braid` command (dist/cli.js). `version` and `help` are answered here; every other command
// first loads the commands with the core, sql.js and the kernel (dist/cli-commands.js, built from
// ./process: see scripts/lazyBundles.mjs).
import { errorMessage } from '../core/errors';
import { quickAnswer, splitInvocation, type QuickAnswer } from './quickAnswer';
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
  import('./process').then(
    ({ runAsProcess }) => runAsProcess(),
    (err: unknown) => {
      process.stderr.write(terminalSafe(`braid: cannot load its commands: ${errorMessage(err)}\n`));
      process.exitCode = 1;
    },
  );
}
