import path from 'node:path';
import { leftOutNote } from '../../core/store/fork';
import { relinkSessions } from '../../core/store/relink';
import { finishWorktree, forkIntoWorktree, recreateWorktree } from '../../core/store/worktreeFork';
import { NotARepositoryError } from '../../core/git/worktree';
import { counted } from '../../core/counted';
import { expectPositionals, parseArgs, UsageError, type ParsedArgs } from '../args';
import type { CliContext } from '../context';
import { shortSessionId, withSession } from '../resolveIds';
import { jsonText, oneLine } from '../terminalText';

/**
 * `fork <id> --worktree [--turn N] [--branch NAME] [--worktree-root DIR] [--carry-changes] [--json]`:
 * a fork whose tools act in a new git worktree; prints its id, then on stderr where it runs.
 */
export async function forkWorktree(ctx: CliContext, typed: string, args: ParsedArgs, turn: number | undefined, env: NodeJS.ProcessEnv): Promise<number> {
  const root = (args.options.get('worktree-root') as string | undefined) ?? env.BRAID_WORKTREE_ROOT;
  return withSession(ctx, typed, async (store, id) => {
    let made;
    try {
      made = await forkIntoWorktree(store, id, {
        ...(turn !== undefined ? { turn } : {}),
        ...(args.options.has('title') ? { title: args.options.get('title') as string } : {}),
        ...(args.options.has('branch') ? { branch: args.options.get('branch') as string } : {}),
        ...(root ? { root } : {}),
        carryChanges: args.options.has('carry-changes'),
      });
    } catch (err) {
      if (err instanceof NotARepositoryError) err.message += ` (braid fork ${shortSessionId(store, id)}${turn !== undefined ? ` --turn ${turn}` : ''})`;
      throw err;
    }
    const { fork, location, notes } = made;
    ctx.out(
      args.options.has('json')
        ? `${jsonText({ id: fork.id, title: fork.title, forkedFrom: fork.forkedFrom, turnCount: fork.turnCount, leftOutTurn: fork.leftOutTurn, workspaceDir: fork.workspaceDir, runLocation: location, notes })}\n`
        : `${fork.id}\n`,
    );
    ctx.err(
      `braid: the fork runs in the worktree ${oneLine(location.worktree)} on branch ${oneLine(location.branch)}; continue it there: cd ${oneLine(fork.workspaceDir)} && braid exec --session ${shortSessionId(store, fork.id)} "..."\n`,
    );
    for (const note of notes) ctx.err(`braid: ${oneLine(note)}\n`);
    if (fork.leftOutTurn !== null) ctx.err(`braid: ${leftOutNote(fork)}\n`);
    return 0;
  });
}

/** `finish <id> (--merge | --cherry-pick | --discard) [--delete-branch] [--json]` */
export async function finish(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['merge', 'cherry-pick', 'discard', 'delete-branch', 'json'] });
  const [typed] = expectPositionals(args, ['id']);
  const methods = (['merge', 'cherry-pick', 'discard'] as const).filter((m) => args.options.has(m));
  if (methods.length !== 1) throw new UsageError('give one of --merge, --cherry-pick or --discard');
  return withSession(ctx, typed!, async (store, id) => {
    const result = await finishWorktree(store, id, methods[0]!, { deleteBranch: args.options.has('delete-branch') });
    if (args.options.has('json')) {
      ctx.out(`${jsonText(result)}\n`);
      return 0;
    }
    const brought =
      result.how === 'discard'
        ? 'brought nothing back'
        : `${result.how === 'merge' ? 'merged' : 'cherry-picked'} ${counted(result.commits, 'commit')} of ${oneLine(result.location.branch)} into ${oneLine(result.location.repository)}`;
    const branch = result.branchDeleted ? `deleted branch ${oneLine(result.location.branch)}` : `kept branch ${oneLine(result.location.branch)}`;
    ctx.out(`${brought}; removed the worktree ${oneLine(result.location.worktree)}; ${branch}\n`);
    return 0;
  });
}

/** `recreate-worktree <id>`: the worktree folder of a session, deleted by hand, made again from its branch. */
export async function recreate(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const [typed] = expectPositionals(parseArgs(argv, {}), ['id']);
  return withSession(ctx, typed!, async (store, id) => {
    const location = await recreateWorktree(store, id);
    ctx.out(`re-created the worktree ${oneLine(location.worktree)} from branch ${oneLine(location.branch)}\n`);
    return 0;
  });
}

/** `relink --from OLD [--to NEW] [--json]`: the sessions recorded under a moved or renamed folder, moved to where it is now (default: the workspace). */
export async function relink(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['json'], valued: ['from', 'to'] });
  expectPositionals(args, []);
  const from = args.options.get('from') as string | undefined;
  if (!from) throw new UsageError('--from <old folder> is required (the path the sessions were recorded under; braid list --all shows them)');
  const to = path.resolve(ctx.workspace, (args.options.get('to') as string | undefined) ?? '.');
  return ctx.withStore(async (store) => {
    const result = await relinkSessions(store, path.resolve(ctx.workspace, from), to);
    ctx.out(
      args.options.has('json')
        ? `${jsonText(result)}\n`
        : `re-linked ${counted(result.moved.length, 'session')} from ${oneLine(from)} to ${oneLine(result.toDir)}\n`,
    );
    return 0;
  });
}
