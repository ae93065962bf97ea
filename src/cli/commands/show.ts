import type { SessionUsage, UsageFigures } from '../../core/index/usageRows';
import type { SessionStore } from '../../core/store/sessionStore';
import type { SessionState } from '../../core/format/sessionState';
import { promptText } from '../../core/format/messageText';
import { shownTitle } from '../../core/format/titles';
import { textStart } from '../../core/format/textStart';
import { expectPositionals, parseArgs } from '../args';
import type { CliContext } from '../context';
import { PROMPT_IDS, shortForms } from '../idPrefix';
import { promptsOf, shortSessionId, withSession } from '../resolveIds';
import { jsonText, oneLine } from '../terminalText';
import { counted } from '../../core/counted';
import { timeAgo } from '../../core/timeAgo';
import { injectedOf, isPromptRecord, type MessageRecord } from '../../core/wire/records';
import type { History } from '../../core/wire/replay';
import { todoListOf } from '../../core/format/logFold';
import { todoListText, type TodoList } from '../../core/format/todoList';

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
    const todos = todosOf(store, id);
    if (args.options.has('json')) {
      writeShowJson(ctx, state, store.history(id), todos);
      return 0;
    }
    const history = store.history(id);
    const lines = [
      oneLine(`${shownTitle(state) || '(untitled)'}  [${shortSessionId(store, state.id)}: ${state.id}]`),
      `workspace ${oneLine(state.workspaceDir)}  status ${state.status}${state.archived ? ' (archived)' : ''}  turns ${state.turnCount}`,
      ...forkLines(store, state.forkedFrom),
      ...sharedLines(store, state),
      ...usageLines(store.index.sessionUsage(state.id)),
      ...todoLines(todos),
      '',
    ];
    lines.push(...conversationLines(history, promptShortIds(store, id)));
    if (history.turnBegins.length > 0 && state.shared) lines.push('', `fork at a turn: braid fork ${shortSessionId(store, id)} --turn N`);
    else if (history.turnBegins.length > 0)
      lines.push(
        '',
        `fork or rewind at a turn: braid fork ${shortSessionId(store, id)} --turn N; braid rewind ${shortSessionId(store, id)} --turn N (or --to <prompt id>)`,
      );
    lines.push(...subagentLines(store, id, state.agents));
    ctx.out(`${lines.join('\n')}\n`);
    return 0;
  });
}

/** Where a fork came from: the session and turn, and the subagent when it holds one's conversation. */
function forkLines(store: SessionStore, from: SessionState['forkedFrom']): string[] {
  if (!from) return [];
  const source = `${shortSessionId(store, from.sessionId)}${from.turn !== null ? ` at turn ${from.turn}` : ''}`;
  return [from.agentId ? `forked from agent ${from.agentId} of ${source}` : `forked from ${source}`];
}

/** Where a session pulled from a git remote came from, and that it is read-only here. */
function sharedLines(store: SessionStore, state: SessionState): string[] {
  const shared = state.shared;
  if (!shared) return [];
  return [
    oneLine(`shared by ${shared.author} on ${shared.machineName}, pulled from ${shared.remote} ${timeAgo(shared.pulledAt, Date.now())}`),
    `read-only here: braid fork ${shortSessionId(store, state.id)} makes a session of this machine to continue it`,
  ];
}

/** The subagents (task tool runs), each by the id `fork --agent` takes. */
function subagentLines(store: SessionStore, id: string, agents: SessionState['agents']): string[] {
  const subagents = agents.filter((a) => a.parentId !== null);
  if (subagents.length === 0) return [];
  return [
    '',
    'subagents',
    ...subagents.map((a) => `  ${a.id}  ${oneLine(a.title) || '(untitled)'}`),
    `fork a subagent's conversation: braid fork ${shortSessionId(store, id)} --agent <id>`,
  ];
}

/**
 * The conversation, a line or more a message: each turn under its number and its prompt's
 * shortened id, context another tool injected as one line saying what it was.
 */
function conversationLines(history: History, shortIds: ReadonlyMap<string, string>): string[] {
  const lines: string[] = [];
  const compacted = (turn: number) =>
    history.compactions.filter((c) => c.turn === turn).map((c) => `  --- context compacted: ${c.summarized} earlier messages summarized for the model ---`);
  const promptOf = new Map<number, string>();
  for (const m of history.messages) if (isPromptRecord(m) && !promptOf.has(m.turn)) promptOf.set(m.turn, m.id);
  let turn = 0;
  for (const m of history.messages) {
    if (m.turn !== turn) {
      lines.push(...compacted(turn));
      // Each turn under its number and its prompt's id: what fork and rewind take.
      const prompt = promptOf.get(m.turn);
      lines.push(prompt ? `turn ${m.turn}  prompt ${shortIds.get(prompt) ?? oneLine(prompt)}` : `turn ${m.turn}`);
      turn = m.turn;
    } else if (isPromptRecord(m) && promptOf.get(m.turn) !== m.id) lines.push(`turn ${m.turn}  prompt ${shortIds.get(m.id) ?? oneLine(m.id)}`); // a prompt steered into the turn
    const text = promptText(m.message).trim();
    const injected = injectedOf(m);
    if (injected) lines.push(`  [context ${oneLine(injected.by)} added: ${oneLine(injected.kind)}, ${counted(text.length, 'character')}]`);
    else if (m.message.role === 'toolResult') lines.push(`  [${oneLine(m.message.toolName)} result] ${textStart(text, 200)}`);
    else if (m.message.role === 'assistant' && m.message.stopReason === 'error') lines.push(`  [model error] ${oneLine(m.message.errorMessage ?? '')}`);
    else lines.push(`${m.message.role === 'user' ? '>' : ' '} ${text}`);
  }
  lines.push(...compacted(turn));
  return lines;
}

/** The model's todo list (its last todo_write call, as of the effective turns), when it has one. */
function todoLines(todos: TodoList | null): string[] {
  if (!todos || todos.items.length === 0) return [];
  return [
    `todo list (turn ${todos.turn}):`,
    ...todoListText(todos.items)
      .split('\n')
      .map((line) => `  ${oneLine(line)}`),
  ];
}

/** The model's todo list as the session's summary folds it (null when it has none). */
function todosOf(store: SessionStore, id: string): TodoList | null {
  const fold = store.index.summaryOf(id)?.fold;
  return fold ? todoListOf(fold) : null;
}

/** Bytes of show's JSON written at once: a long session's is written as it is made, never held whole. */
const JSON_CHUNK_CHARS = 1024 * 1024;

/**
 * `{state, messages, todos}` as `jsonText(value, 2)` writes it, a message at a time (a long
 * session's JSON is never held whole). jsonText leaves nothing a terminal acts on, so the text
 * goes out as it is, spared terminalSafe's pass over it.
 */
function writeShowJson(ctx: CliContext, state: SessionState, history: History, todos: TodoList | null): void {
  let chunk = `{\n  "state": ${nested(state)},\n  "messages": [`;
  history.messages.forEach((m, i) => {
    chunk += `${i === 0 ? '' : ','}\n    ${messageJson(m)}`;
    if (chunk.length < JSON_CHUNK_CHARS) return;
    ctx.outRaw(chunk);
    chunk = '';
  });
  ctx.outRaw(`${chunk}${history.messages.length > 0 ? '\n  ' : ''}],\n  "todos": ${nested(todos)}\n}\n`);
}

/** A value as jsonText lays it out two spaces deep (a JSON text holds no newline but its layout's). */
function nested(value: unknown): string {
  return jsonText(value, 2).replace(/\n/g, '\n  ');
}

/**
 * A message of show's JSON, `{id, turn, role, text, injected?}`, as jsonText lays it out four
 * spaces deep, written field by field: a read record's id and role are strings and its turn a
 * whole number (records.ts, hasRequiredFields), its text a string, so only the strings need JSON.
 */
function messageJson(m: MessageRecord): string {
  const injected = injectedOf(m);
  const context = injected ? `,\n      "injected": {\n        "by": ${jsonText(injected.by)},\n        "kind": ${jsonText(injected.kind)}\n      }` : '';
  return `{\n      "id": ${jsonText(m.id)},\n      "turn": ${m.turn},\n      "role": ${jsonText(m.message.role)},\n      "text": ${jsonText(promptText(m.message))}${context}\n    }`;
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
