/** The commands dist/cli.js runs from the read-only bundle (dist/cli-read.js, ./readCommands). */
export const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set(['list', 'search', 'show', 'blame', 'where']);
