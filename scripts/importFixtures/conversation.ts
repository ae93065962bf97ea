// The conversation every tool is driven through: two prompts whose scripted answers call the
// tool's own tools (list, read, shell, write, edit, a subagent), decided from each request alone.
import type { RecordedRequest, ScriptedReply, ScriptedToolCall } from '../../test/support/modelServer';

/** How one tool's model calls its tools: each returns the call as the model would make it. */
export interface ToolVocabulary {
  /** Lists the workspace (a glob, a list tool or `ls`). */
  list(id: string): ScriptedToolCall;
  read(id: string, file: string): ScriptedToolCall;
  shell(id: string, command: string): ScriptedToolCall;
  write(id: string, file: string, content: string): ScriptedToolCall;
  edit(id: string, file: string, oldText: string, newText: string): ScriptedToolCall;
  /** Starts a subagent with `prompt`; absent when the tool has none. */
  subagent?(id: string, prompt: string): ScriptedToolCall;
  /** Waits for the subagent the call `spawnId` started, where the tool needs that (Codex). */
  awaitSubagent?(id: string, spawnId: string): ResolvedCall;
}

/** A call whose arguments depend on what the request holds (an id the tool made up), set when answering. */
export interface ResolvedCall extends ScriptedToolCall {
  resolve(requestText: string): string;
}

/** A call of tool `name` with `input` as its JSON arguments (in a Responses API `namespace` when given). */
export function toolCall(id: string, name: string, input: object, namespace?: string): ScriptedToolCall {
  return { id, name, arguments: JSON.stringify(input), ...(namespace ? { namespace } : {}) };
}

/** The markers that tell the prompts apart in any request (they are in the prompts' text). */
export const MARKERS = { first: '[fixture turn 1]', second: '[fixture turn 2]', subagent: '[fixture subagent]' } as const;

/** The prompts the person "types"; a tool may wrap the second one (Claude Code: a slash command). */
export const PROMPTS = {
  first: `Look around this project, run the word count, write TODO.md and add a third line to notes.md. ${MARKERS.first}`,
  second: `Have a helper check TODO.md, then tell me what changed. ${MARKERS.second}`,
  subagent: `Read TODO.md and say whether it lists one task. ${MARKERS.subagent}`,
} as const;

type Answer = Exclude<ScriptedReply, { kind: 'httpError' | 'stall' | 'break' }>;

/** The answers to one prompt, in order: each but the last calls tools; the last one is text. */
interface ScriptedTurn {
  readonly marker: string;
  readonly answers: readonly Answer[];
}

/** The scripted turns for a tool, its call ids prefixed with `idPrefix` (Anthropic's look like `toolu_`). */
export function fixtureTurns(v: ToolVocabulary, idPrefix: string): ScriptedTurn[] {
  const id = (n: string) => `${idPrefix}${n}`;
  const first: Answer[] = [
    {
      kind: 'toolCalls',
      thinking: 'I should see which files exist and what notes.md holds.',
      text: 'Let me look at the project first.',
      calls: [v.list(id('list1')), v.read(id('read1'), 'notes.md')],
    },
    { kind: 'toolCalls', calls: [v.shell(id('shell1'), 'wc -l notes.md')] },
    { kind: 'toolCalls', text: 'Now the TODO file.', calls: [v.write(id('write1'), 'TODO.md', '# TODO\n\n- greet the world\n')] },
    { kind: 'toolCalls', calls: [v.edit(id('edit1'), 'notes.md', 'two\n', 'two\nthree\n')] },
    { kind: 'text', chunks: ['notes.md has three lines now', ', and TODO.md lists one task.'] },
  ];
  const second: Answer[] = v.subagent
    ? [
        { kind: 'toolCalls', text: 'I will ask a helper.', calls: [v.subagent(id('task1'), PROMPTS.subagent)] },
        ...(v.awaitSubagent ? [{ kind: 'toolCalls' as const, calls: [v.awaitSubagent(id('wait1'), id('task1'))] }] : []),
        { kind: 'text', chunks: ['The helper confirms TODO.md lists one task; notes.md gained "three".'] },
      ]
    : [
        { kind: 'toolCalls', calls: [v.read(id('read2'), 'TODO.md')] },
        { kind: 'text', chunks: ['TODO.md lists one task; notes.md gained "three".'] },
      ];
  const subagent: Answer[] = [
    { kind: 'toolCalls', calls: [v.read(id('subread1'), 'TODO.md')] },
    { kind: 'text', chunks: ['Yes: TODO.md lists one task, "greet the world".'] },
  ];
  return [
    { marker: MARKERS.first, answers: first },
    { marker: MARKERS.second, answers: second },
    { marker: MARKERS.subagent, answers: subagent },
  ];
}

/**
 * Decides the reply to a request from the request alone, so a retry or a side call never shifts
 * the script: a request without tools is a side call (a title, a summary) and gets `sideText`;
 * one that holds the subagent's marker and no prompt's is the subagent's; otherwise the newest
 * prompt's turn answers. Within a turn, the answer is the first whose calls the request does not
 * yet hold (the call ids are unique, so finding one in the request means it was made).
 */
export function scriptedReply(turns: readonly ScriptedTurn[], request: RecordedRequest, sideText: string): ScriptedReply {
  const text = JSON.stringify(request.body);
  const tools = request.body.tools;
  if (!Array.isArray(tools) || tools.length === 0) return { kind: 'text', chunks: [sideText] };
  const present = turns.filter((t) => text.includes(t.marker));
  const prompts = present.filter((t) => t.marker !== MARKERS.subagent);
  const turn = prompts.length === 0 ? present[0] : prompts.reduce((a, b) => (text.indexOf(b.marker) > text.indexOf(a.marker) ? b : a));
  if (!turn) return { kind: 'text', chunks: [sideText] };
  const next =
    turn.answers.find((a) => a.kind === 'text' || !a.calls.some((c) => text.includes(JSON.stringify(c.id)))) ?? turn.answers[turn.answers.length - 1]!;
  if (next.kind === 'text') return next;
  return { ...next, calls: next.calls.map((c) => ('resolve' in c ? { ...c, arguments: (c as ResolvedCall).resolve(text) } : c)) };
}
