// The commands that only read the store (`list`, `search`, `show`, `blame`, `where`): dist/cli-read.js is
// built from them alone, without the agent kernel, the model catalogue, git or the importers, so
// a fresh `braid list` loads and compiles a fraction of what `braid exec` does. dist/cli.js picks
// the bundle by the command's name (READ_ONLY_COMMANDS, ./readOnly).
import { blame } from './commands/blame';
import * as sessions from './commands/sessions';
import { search } from './commands/search';
import { show } from './commands/show';
import { where } from './commands/where';
import { runCommands, type CliIo, type CommandTable } from './dispatch';

export const READ_COMMANDS: CommandTable = {
  plain: {
    where: (argv, input) => where(argv, { option: input.dataDirOption, env: input.env, cwd: input.cwd, workspace: input.workspace, out: input.out }),
  },
  store: { list: sessions.list, search, show, blame },
};

/** Runs one invocation of a read-only command; any other command is a usage error here. */
export function runReadCli(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommands(READ_COMMANDS, argv, io);
}
