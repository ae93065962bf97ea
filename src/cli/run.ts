// Every command of the CLI (dist/cli-commands.js). The read-only ones are ./readCommands' too, so
// the two bundles run them alike.
import { runCommands, type CliIo, type CommandTable } from './dispatch';
import { READ_COMMANDS } from './readCommands';

export type { CliIo } from './dispatch';
export { EXIT_ERROR, EXIT_OK, EXIT_USAGE } from './exitCodes';

/**
 * Each command's module is loaded when it runs (one bundle, but a module's code runs only when
 * first imported): a command does not pay for the git, kernel, model or maintenance code of others.
 */
export const ALL_COMMANDS: CommandTable = {
  plain: {
    ...READ_COMMANDS.plain,
    model: (argv, input) => import('./commands/model').then((m) => m.showModel(argv, input.env, input.out, input.err)),
    hooks: (argv, input) => import('./commands/hooks').then((m) => m.hooks(argv, { env: input.env, workspace: input.workspace, out: input.out })),
    permissions: (argv, input) => import('./commands/hooks').then((m) => m.permissions(argv, { env: input.env, workspace: input.workspace, out: input.out })),
    skills: (argv, input) => import('./commands/skills').then((m) => m.skills(argv, { workspace: input.workspace, env: input.env, out: input.out })),
  },
  store: {
    ...READ_COMMANDS.store,
    rename: (ctx, argv) => import('./commands/sessions').then((m) => m.rename(ctx, argv)),
    archive: (ctx, argv) => import('./commands/sessions').then((m) => m.archive(ctx, argv)),
    restore: (ctx, argv) => import('./commands/sessions').then((m) => m.restore(ctx, argv)),
    delete: (ctx, argv) => import('./commands/sessions').then((m) => m.remove(ctx, argv)),
    undelete: (ctx, argv) => import('./commands/sessions').then((m) => m.undelete(ctx, argv)),
    export: (ctx, argv) => import('./commands/sessions').then((m) => m.exportSession(ctx, argv)),
    'rebuild-index': (ctx, argv) => import('./commands/maintenance').then((m) => m.rebuildIndex(ctx, argv)),
    doctor: (ctx, argv) => import('./commands/maintenance').then((m) => m.doctor(ctx, argv)),
    storage: (ctx, argv) => import('./commands/storage').then((m) => m.storage(ctx, argv)),
    gc: (ctx, argv) => import('./commands/storage').then((m) => m.gc(ctx, argv)),
    exec: (ctx, argv, env) => import('./commands/exec').then((m) => m.exec(ctx, argv, env)),
    fork: (ctx, argv, env) => import('./commands/forkRewind').then((m) => m.fork(ctx, argv, env)),
    rewind: (ctx, argv) => import('./commands/forkRewind').then((m) => m.rewind(ctx, argv)),
    'undo-rewind': (ctx, argv) => import('./commands/forkRewind').then((m) => m.undo(ctx, argv)),
    finish: (ctx, argv) => import('./commands/worktree').then((m) => m.finish(ctx, argv)),
    'recreate-worktree': (ctx, argv) => import('./commands/worktree').then((m) => m.recreate(ctx, argv)),
    relink: (ctx, argv) => import('./commands/worktree').then((m) => m.relink(ctx, argv)),
    usage: (ctx, argv) => import('./commands/usage').then((m) => m.usage(ctx, argv)),
    setup: (ctx, argv, env) => import('./commands/setup').then((m) => m.setup(ctx, argv, env)),
    import: (ctx, argv, env) => import('./commands/import').then((m) => m.importCommand(ctx, argv, env)),
    mcp: (ctx, argv, env) => import('./commands/mcp').then((m) => m.mcp(ctx, argv, env)),
    memory: (ctx, argv, env) => import('./commands/memory').then((m) => m.memory(ctx, argv, env)),
    push: (ctx, argv, env) => import('./commands/share').then((m) => m.push(ctx, argv, env)),
    pull: (ctx, argv) => import('./commands/share').then((m) => m.pull(ctx, argv)),
    sync: (ctx, argv, env) => import('./commands/share').then((m) => m.sync(ctx, argv, env)),
  },
};

/** Runs one CLI invocation and returns its exit code. Errors print one line (with the stack only under BRAID_DEBUG). */
export function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommands(ALL_COMMANDS, argv, io);
}
