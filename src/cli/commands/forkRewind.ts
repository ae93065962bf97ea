import { forkSession, leftOutNote } from '../../core/store/fork';
import { forkAgent } from '../../core/store/agentFork';
import { previewRewind, rewindSession, undoRewind, type RewindPreview } from '../../core/store/rewind';
import { expectPositionals, parseArgs, UsageError, type ParsedArgs } from '../args';
import type { CliContext } from '../context';
import { promptOfTurn, resolvePromptId, shortSessionId, withSession } from '../resolveIds';
import { jsonText, oneLine, shortLine } from '../terminalText';
import { counted } from '../../core/counted';
import { textStart } from '../../core/format/textStart';
import { forkWorktree } from './worktree';

/**
 * `fork <id> [--turn N | --agent <agentId>] [--title T] [--json]`: prints the new session's id;
 * `--agent` forks that subagent's conversation; with `--worktree`, see forkWorktree.
 */
export async function fork(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const args = parseArgs(argv, { flags: ['json', 'worktree', 'carry-changes'], valued: ['turn', 'title', 'branch', 'worktree-root', 'agent'] });
  const [typed] = expectPositionals(args, ['id']);
  const turn = turnOption(args);
  const worktreeOnly = ['branch', 'worktree-root', 'carry-changes'].find((o) => args.options.has(o));
  const agent = args.options.get('agent') as string | undefined;
  if (agent !== undefined) {
    const other = ['turn', 'worktree'].find((o) => args.options.has(o));
    if (other) throw new UsageError(`--agent forks a subagent's whole conversation; it takes no --${other}`);
    return withSession(ctx, typed!, async (store, id) => {
      const state = await forkAgent(store, id, agent, args.options.has('title') ? { title: args.options.get('title') as string } : {});
      ctx.out(
        args.options.has('json')
          ? `${jsonText({ id: state.id, title: state.title, forkedFrom: state.forkedFrom, turnCount: state.turnCount })}\n`
          : `${state.id}\n`,
      );
      return 0;
    });
  }
  if (args.options.has('worktree')) return forkWorktree(ctx, typed!, args, turn, env);
  if (worktreeOnly) throw new UsageError(`--${worktreeOnly} goes with --worktree`);
  return withSession(ctx, typed!, async (store, id) => {
    const state = await forkSession(store, id, {
      ...(turn !== undefined ? { turn } : {}),
      ...(args.options.has('title') ? { title: args.options.get('title') as string } : {}),
    });
    ctx.out(
      args.options.has('json')
        ? `${jsonText({ id: state.id, title: state.title, forkedFrom: state.forkedFrom, turnCount: state.turnCount, leftOutTurn: state.leftOutTurn })}\n`
        : `${state.id}\n`,
    );
    if (state.leftOutTurn !== null) ctx.err(`braid: ${leftOutNote(state)}\n`);
    return 0;
  });
}

function describe(p: RewindPreview): string {
  const what = p.alreadyRewound
    ? `already rewound to turn ${p.toTurn}; restores the files that rewind left`
    : `rewind to turn ${p.toTurn} (drops ${counted(p.turnsDropped, 'turn')})`;
  const lines = [`${what}; your message was: ${JSON.stringify(textStart(p.text, 200))}`];
  for (const f of p.files)
    lines.push(`  ${f.action.padEnd(8)} ${oneLine(f.path)}  +${f.added} -${f.removed}${f.changedOutside ? '  (changed outside Braid since)' : ''}`);
  for (const c of p.commands) lines.push(`  command that ran (cannot be undone): ${oneLine(c)}`);
  for (const c of p.commandsMayHaveRun) lines.push(`  command that may have run (Braid stopped before its result came back; cannot be undone): ${oneLine(c)}`);
  for (const c of p.mcpCalls) lines.push(`  MCP call (may have changed things outside Braid's checkpoints): ${shortLine(c, 200)}`);
  for (const r of p.refused) lines.push(`  left alone: ${oneLine(r)}`);
  if (p.importedTurns)
    lines.push(`  ${counted(p.importedTurns, 'turn')} imported from another agent: no file checkpoints, only the conversation is rewound there`);
  if (p.pulledTurns)
    lines.push(`  ${counted(p.pulledTurns, 'turn')} pulled from another machine: their file changes were made there, only the conversation is rewound there`);
  return `${lines.join('\n')}\n`;
}

/** `--turn N`: a turn number, 1 or more (`braid show` numbers the turns). */
function turnOption(args: ParsedArgs): number | undefined {
  const text = args.options.get('turn') as string | undefined;
  if (text === undefined) return undefined;
  const turn = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(turn) || turn < 1) throw new UsageError('--turn takes a turn number (1 or more; braid show numbers them)');
  return turn;
}

/**
 * `rewind <id> (--to <prompt id> | --turn N) [--files] [--confirm-outside] [--preview] [--json]`:
 * drops that prompt (for `--turn N`, the one that began turn N) and what followed.
 */
export async function rewind(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['files', 'preview', 'json', 'confirm-outside'], valued: ['to', 'turn'] });
  const [typed] = expectPositionals(args, ['id']);
  const to = args.options.get('to') as string | undefined;
  const turn = turnOption(args);
  if (to !== undefined && turn !== undefined) throw new UsageError('--to and --turn both say where to rewind to; give one');
  if (to === undefined && turn === undefined) throw new UsageError('--to <prompt id> or --turn N is required (braid show <id> prints both)');
  return withSession(ctx, typed!, async (store, id) => {
    const messageId = turn !== undefined ? promptOfTurn(store, id, turn) : resolvePromptId(store, id, to!);
    if (args.options.has('preview')) {
      const preview = previewRewind(store, id, messageId, turn);
      ctx.out(args.options.has('json') ? `${jsonText(preview)}\n` : describe(preview));
      return 0;
    }
    const result = await rewindSession(store, id, messageId, {
      files: args.options.has('files'),
      confirmOutside: args.options.has('confirm-outside'),
      ...(turn !== undefined ? { turn } : {}),
    });
    if (args.options.has('json')) ctx.out(`${jsonText(result)}\n`);
    else {
      ctx.out(describe(result));
      ctx.out(
        `${result.alreadyRewound ? 'already rewound' : 'rewound'}; restored ${counted(result.restored.length, 'file')}${result.skipped.length ? `, skipped ${oneLine(result.skipped.join(', '))} (changed outside Braid; --confirm-outside to restore them too)` : ''}; undo with: braid undo-rewind ${shortSessionId(store, id)}\n`,
      );
    }
    return 0;
  });
}

/** `undo-rewind <id>` */
export async function undo(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const [typed] = expectPositionals(parseArgs(argv, {}), ['id']);
  return withSession(ctx, typed!, async (store, id) => {
    const result = await undoRewind(store, id);
    ctx.out(`undid the rewind: ${counted(result.turns, 'turn')} back, ${counted(result.files.length, 'file')} put back\n`);
    for (const note of result.checkpointsRemoved ?? []) ctx.out(`  left alone: ${oneLine(note)}\n`);
    return 0;
  });
}
