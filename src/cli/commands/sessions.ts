import type { SessionUsage, UsageFigures } from '../../core/index/usageRows';
import type { SessionStore } from '../../core/store/sessionStore';
import { promptText } from '../../core/store/summary';
import { shownTitle } from '../../core/store/titles';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import { expectPositionals, parseArgs, UsageError } from '../args';
import type { CliContext } from '../context';
import { jsonText, oneLine } from '../terminalText';
import { rowJson, rowLine } from './format';

/** `list [--all] [--archived] [--json]` */
export async function list(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['all', 'archived', 'json'] });
  expectPositionals(args, []);
  const all = args.options.has('all');
  return ctx.withStore(async (store) => {
    const key = workspaceKey(ctx.workspace);
    // Folders added or removed behind the index's back (by hand, a crash, damage) are picked up
    // first; --all, which reads every folder anyway, also runs the checks that read the whole index.
    if (all) store.index.verify();
    await store.index.reconcile(all ? undefined : key);
    const rows = store.index.list({ workspaceKey: all ? undefined : key, archived: args.options.has('archived') });
    if (args.options.has('json')) ctx.out(`${jsonText(rows.map(rowJson), 2)}\n`);
    else if (rows.length === 0) ctx.out(all ? 'No sessions.\n' : `No sessions for ${oneLine(ctx.workspace)}.\n`);
    else ctx.out(rows.map((r) => rowLine(r, all)).join('\n') + '\n');
    return 0;
  });
}

/** `search <text> [--all] [--json]` */
export async function search(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['all', 'json', 'archived'] });
  const text = args.positionals.join(' ').trim();
  if (!text) throw new UsageError('expected <text> to search for');
  return ctx.withStore(async (store) => {
    const all = args.options.has('all');
    const rows = store.index.search(text, { workspaceKey: all ? undefined : workspaceKey(ctx.workspace), archived: args.options.has('archived') });
    if (args.options.has('json')) ctx.out(`${jsonText(rows.map(rowJson), 2)}\n`);
    else ctx.out(rows.length ? rows.map((r) => rowLine(r, all)).join('\n') + '\n' : 'No matching sessions.\n');
    return 0;
  });
}

/** `show <id> [--json]`: the session record and its conversation. */
export async function show(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['json'] });
  const [id] = expectPositionals(args, ['id']);
  return ctx.withStore(async (store) => {
    const state = store.get(id!);
    const history = store.history(id!);
    if (args.options.has('json')) {
      ctx.out(`${jsonText({ state, messages: history.messages.map((m) => ({ id: m.id, turn: m.turn, role: m.message.role, text: promptText(m.message) })) }, 2)}\n`);
      return 0;
    }
    const lines = [
      oneLine(`${shownTitle(state) || '(untitled)'}  [${state.id}]`),
      `workspace ${oneLine(state.workspaceDir)}  status ${state.status}${state.archived ? ' (archived)' : ''}  turns ${state.turnCount}`,
      ...usageLines(store.index.sessionUsage(state.id)),
      '',
    ];
    const compacted = (turn: number) => history.compactions.filter((c) => c.turn === turn).map((c) => `  --- context compacted: ${c.summarized} earlier messages summarized for the model ---`);
    let turn = 0;
    for (const m of history.messages) {
      if (m.turn !== turn) lines.push(...compacted(turn));
      turn = m.turn;
      const text = promptText(m.message).trim();
      if (m.message.role === 'toolResult') lines.push(`  [${oneLine(m.message.toolName)} result] ${text.slice(0, 200)}`);
      else if (m.message.role === 'assistant' && m.message.stopReason === 'error') lines.push(`  [model error] ${oneLine(m.message.errorMessage ?? '')}`);
      else lines.push(`${m.message.role === 'user' ? '>' : ' '} ${text}`);
    }
    lines.push(...compacted(turn));
    ctx.out(`${lines.join('\n')}\n`);
    return 0;
  });
}

/** The session's own calls (as `braid usage` counts them), and a fork's whole history apart. */
function usageLines(usage: SessionUsage): string[] {
  const line = (u: UsageFigures) => `${u.calls} call${u.calls === 1 ? '' : 's'}, ${u.input} in, ${u.output} out, ${u.cacheRead} cached  cost ${u.cost.toFixed(4)}`;
  return [`usage ${line(usage.own)}`, ...(usage.inherited.calls > 0 ? [`  with inherited history: ${line(usage.history)}`] : [])];
}

async function oneSession(ctx: CliContext, argv: readonly string[], action: (store: SessionStore, id: string) => Promise<string>): Promise<number> {
  const [id] = expectPositionals(parseArgs(argv, {}), ['id']);
  return ctx.withStore(async (store) => {
    ctx.out(`${await action(store, id!)}\n`);
    return 0;
  });
}

export const archive = (ctx: CliContext, argv: readonly string[]) => oneSession(ctx, argv, async (s, id) => (await s.archive(id), `archived ${id}`));
export const restore = (ctx: CliContext, argv: readonly string[]) => oneSession(ctx, argv, async (s, id) => (await s.restore(id), `restored ${id}`));
export const remove = (ctx: CliContext, argv: readonly string[]) => oneSession(ctx, argv, async (s, id) => (await s.delete(id), `moved ${id} to the trash (braid undelete ${id} brings it back for 7 days)`));
export const undelete = (ctx: CliContext, argv: readonly string[]) => oneSession(ctx, argv, async (s, id) => (await s.undelete(id), `restored ${id} from the trash`));

/** `rename <id> <title>` */
export async function rename(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, {});
  const [id, ...words] = args.positionals;
  if (!id || words.length === 0) throw new UsageError('expected <id> <title>');
  return ctx.withStore(async (store) => {
    const state = await store.rename(id, words.join(' '));
    ctx.out(`renamed ${id} to "${oneLine(state.title)}"\n`);
    return 0;
  });
}

/** `export <id> --format md|jsonl` */
export async function exportSession(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { valued: ['format'] });
  const [id] = expectPositionals(args, ['id']);
  const format = args.options.get('format') ?? 'md';
  if (format !== 'md' && format !== 'jsonl') throw new UsageError('--format is md or jsonl');
  return ctx.withStore(async (store) => {
    const text = store.export(id!, format);
    // The raw log stays byte-exact (it is for programs); Markdown is for reading.
    if (format === 'jsonl') ctx.outRaw(text);
    else ctx.out(text);
    return 0;
  });
}
