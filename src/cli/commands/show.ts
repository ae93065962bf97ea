import type { SessionUsage, UsageFigures } from '../../core/index/usageRows';
import type { SessionStore } from '../../core/store/sessionStore';
import { promptText } from '../../core/format/messageText';
import { shownTitle } from '../../core/format/titles';
import { textStart } from '../../core/format/textStart';
import { expectPositionals, parseArgs } from '../args';
import type { CliContext } from '../context';
import { PROMPT_IDS, shortForms } from '../idPrefix';
import { promptsOf, withSession } from '../resolveIds';
import { jsonText, oneLine } from '../terminalText';
import { counted } from '../../core/counted';

/**
 * `show <id> [--json]`: the session record and its conversation, each prompt under its turn's
 * number and its id shortened where unique (what `fork --turn`, `rewind --turn` and `rewind --to`
 * take). `--json` keeps the full ids.
 */
export async function show(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['json'] });
  const [typed] = expectPositionals(args, ['id']);
  return withSession(ctx, typed!, async (store, id) => {
    const state = store.get(id);
    const history = store.history(id);
    if (args.options.has('json')) {
      ctx.out(
        `${jsonText({ state, messages: history.messages.map((m) => ({ id: m.id, turn: m.turn, role: m.message.role, text: promptText(m.message) })) }, 2)}\n`,
      );
      return 0;
    }
    const lines = [
      oneLine(`${shownTitle(state) || '(untitled)'}  [${state.id}]`),
      `workspace ${oneLine(state.workspaceDir)}  status ${state.status}${state.archived ? ' (archived)' : ''}  turns ${state.turnCount}`,
      ...usageLines(store.index.sessionUsage(state.id)),
      '',
    ];
    const compacted = (turn: number) =>
      history.compactions.filter((c) => c.turn === turn).map((c) => `  --- context compacted: ${c.summarized} earlier messages summarized for the model ---`);
    const shortIds = promptShortIds(store, id);
    let turn = 0;
    for (const m of history.messages) {
      const user = m.message.role === 'user';
      if (m.turn !== turn) lines.push(...compacted(turn));
      // Each prompt under its turn's number and id: what fork and rewind take.
      if (user) lines.push(`turn ${m.turn}  prompt ${shortIds.get(m.id) ?? oneLine(m.id)}`);
      else if (m.turn !== turn) lines.push(`turn ${m.turn}`);
      turn = m.turn;
      const text = promptText(m.message).trim();
      if (m.message.role === 'toolResult') lines.push(`  [${oneLine(m.message.toolName)} result] ${textStart(text, 200)}`);
      else if (m.message.role === 'assistant' && m.message.stopReason === 'error') lines.push(`  [model error] ${oneLine(m.message.errorMessage ?? '')}`);
      else lines.push(`${user ? '>' : ' '} ${text}`);
    }
    lines.push(...compacted(turn));
    if (history.turnBegins.length > 0) lines.push('', `fork or rewind at a turn: braid fork ${id} --turn N; braid rewind ${id} --turn N (or --to <prompt id>)`);
    ctx.out(`${lines.join('\n')}\n`);
    return 0;
  });
}

/** Each prompt's id shortened where unique among every prompt of the log, the set `rewind --to` resolves in. */
function promptShortIds(store: SessionStore, id: string): Map<string, string> {
  return shortForms(promptsOf(store, id).keys(), PROMPT_IDS);
}

/** The session's own calls (as `braid usage` counts them), and a fork's whole history apart. */
function usageLines(usage: SessionUsage): string[] {
  const line = (u: UsageFigures) => `${counted(u.calls, 'call')}, ${u.input} in, ${u.output} out, ${u.cacheRead} cached  cost ${u.cost.toFixed(4)}`;
  return [`usage ${line(usage.own)}`, ...(usage.inherited.calls > 0 ? [`  with inherited history: ${line(usage.history)}`] : [])];
}
