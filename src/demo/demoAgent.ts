// Braid's demo agent: what `npm start` answers with when no model is configured. It is a script,
// not a model: it reads the user's own words from an OpenAI-style request, recognises a few
// requests (explain a file, create or edit one, run a command, use a subagent, a long answer) and
// plays the tool calls a coding agent would make, one request at a time; Braid runs them with its
// real tools and approvals against the real workspace, and the next request (with the results)
// gets an answer built from what the tools returned. Deterministic: the same request, the same reply.
import { afterCommand, afterEdit, afterWrite, defaultContent, describeFile, describeFolder, folderEntries, numberedLines, testCommand } from './demoAnswers';
import { recognise, type Intent } from './demoIntents';
import { changes, lookingStep } from './demoModes';
import { readRequest, type ChatRequest, type DemoContext, type DoneCall } from './demoRequest';
import { call, doneWith, resolveTarget, type Step } from './demoSteps';
import { chatAnswer, compactionSummary, longAnswer, nextPrompt, sideAnswer } from './demoTalk';

/** A tool call the demo makes: the tool's name and its arguments as JSON text. */
export interface DemoToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** The demo's reply to one request, in the shape the scripted model server streams. */
export type DemoReply =
  | { readonly kind: 'text'; readonly chunks: readonly string[]; readonly chunkDelayMs: number; readonly usage: DemoUsage }
  | { readonly kind: 'toolCalls'; readonly text: string; readonly calls: readonly DemoToolCall[]; readonly usage: DemoUsage };

/** Token counts the demo reports (about four characters a token). */
export interface DemoUsage {
  readonly prompt: number;
  readonly completion: number;
}

function readStep(intent: Extract<Intent, { kind: 'read' }>, done: readonly DoneCall[]): Step {
  const target = resolveTarget(intent, done);
  if (!('path' in target)) return target;
  const read = doneWith(done, 'read_file');
  if (!read) return call(`Let me read \`${target.path}\`.`, 'read_file', { path: target.path });
  return { answer: describeFile(target.path, read.result ?? '') };
}

function createStep(intent: Extract<Intent, { kind: 'create' }>, done: readonly DoneCall[]): Step {
  const write = doneWith(done, 'write_file');
  if (!write) {
    const content = intent.content === undefined ? defaultContent(intent.path) : `${intent.content}\n`;
    return call(`I'll create \`${intent.path}\`.`, 'write_file', { path: intent.path, content });
  }
  return { answer: afterWrite(intent.path, write.result ?? '') };
}

/** The edit to make once the file is read: the asked replacement, or a line added after the last line found only once. */
function planEdit(intent: Extract<Intent, { kind: 'edit' }>, path: string, lines: readonly string[]): Step {
  const text = lines.join('\n');
  const occurrences = (s: string) => text.split(s).length - 1;
  if (intent.replace) {
    const { from, to } = intent.replace;
    if (occurrences(from) === 0) return { answer: `\`${path}\` does not contain “${from}”, so there is nothing to change.` };
    return call(`I'll change “${from}” to “${to}” in \`${path}\`.`, 'edit_file', {
      path,
      old_text: from,
      new_text: to,
      ...(occurrences(from) > 1 ? { replace_all: true } : {}),
    });
  }
  const anchor = [...lines].reverse().find((l) => l.trim() && occurrences(l) === 1);
  if (!anchor) return { answer: `I found no line in \`${path}\` that appears only once, so I cannot anchor an edit there.` };
  const added = intent.insert ?? "Edited by Braid's demo agent.";
  return call(`I'll add a line after “${anchor.trim().slice(0, 60)}” in \`${path}\`.`, 'edit_file', {
    path,
    old_text: anchor,
    new_text: `${anchor}\n${added}`,
  });
}

function editStep(intent: Extract<Intent, { kind: 'edit' }>, done: readonly DoneCall[]): Step {
  const target = resolveTarget(intent, done);
  if (!('path' in target)) return target;
  const read = doneWith(done, 'read_file');
  if (!read) return call(`First I'll read \`${target.path}\`.`, 'read_file', { path: target.path });
  const edit = doneWith(done, 'edit_file');
  if (edit) return { answer: afterEdit(target.path, edit.result ?? '') };
  const lines = numberedLines(read.result ?? '');
  if (!lines) return { answer: describeFile(target.path, read.result ?? '') };
  return planEdit(intent, target.path, lines);
}

function runStep(intent: Extract<Intent, { kind: 'run' }>, done: readonly DoneCall[]): Step {
  let command = intent.command ?? 'ls -la';
  if (intent.tests) {
    const listing = doneWith(done, 'list_dir');
    if (!listing) return call('Let me see how this project runs its tests.', 'list_dir', { path: '.' });
    const found = testCommand(folderEntries(listing.result ?? ''));
    if (!found)
      return {
        answer: `I found no test setup in the top folder (no package.json, Cargo.toml, go.mod, pyproject.toml or Makefile). ${describeFolder(listing.result ?? '')}`,
      };
    command = found;
  }
  const ran = doneWith(done, 'bash');
  if (!ran) return call(`I'll run \`${command}\`.`, 'bash', { command });
  return { answer: afterCommand(command, ran.result ?? '') };
}

function subagentStep(userText: string, done: readonly DoneCall[]): Step {
  const task = doneWith(done, 'task');
  if (!task) {
    return call("I'll hand this to a subagent: it works in its own context, with read-only tools, and reports back.", 'task', {
      description: 'Survey the workspace',
      prompt: `Look at the top folder of the workspace and report what kind of project it is and its main files. The user asked: "${userText.slice(0, 300)}"`,
    });
  }
  const report = (task.result ?? '')
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
  return { answer: `The subagent reported:\n\n${report}\n\nIts own conversation is kept in its own log: expand this session in the Sessions tree to see it.` };
}

/** What a subagent of the demo does: list the top folder, then describe it. */
function subagentWork(done: readonly DoneCall[]): Step {
  const listing = doneWith(done, 'list_dir');
  if (!listing) return call('', 'list_dir', { path: '.' });
  return { answer: describeFolder(listing.result ?? '') };
}

/** The first words of the prompt Carry Out Plan sends (carryOutPlanPrompt in src/protocol/modes.ts; a test keeps them in step). */
const CARRY_OUT = /^Carry out this plan:/;

function mainStep(context: DemoContext): Step {
  // Carrying out a plan does what the planned prompt asked, now in Agent mode.
  const asked = CARRY_OUT.test(context.userText) && context.plannedPrompt ? context.plannedPrompt : context.userText;
  const intent = recognise(asked);
  const { done } = context;
  if (context.mode !== 'agent' && changes(intent)) return lookingStep(intent, context.mode, done);
  switch (intent.kind) {
    case 'read':
      return readStep(intent, done);
    case 'create':
      return createStep(intent, done);
    case 'edit':
      return editStep(intent, done);
    case 'run':
      return runStep(intent, done);
    case 'subagent':
      return subagentStep(asked, done);
    case 'list': {
      const listing = doneWith(done, 'list_dir');
      return listing ? { answer: describeFolder(listing.result ?? '') } : call('Let me list the top folder.', 'list_dir', { path: '.' });
    }
    case 'long':
      return { answer: longAnswer() };
    case 'chat':
      return { answer: chatAnswer(asked) };
  }
}

function stepFor(context: DemoContext): Step {
  switch (context.asker) {
    case 'subagent':
      return subagentWork(context.done);
    case 'compaction':
      return { answer: compactionSummary(context.userText) };
    case 'side-question':
      return { answer: sideAnswer(context.userText, context.earlierPrompts) };
    case 'suggestion':
      return { answer: nextPrompt(context.earlierPrompts) };
    case 'main':
      return mainStep(context);
  }
}

/** A short deterministic tag of a text (FNV-1a), so tool call ids differ between prompts. */
function tag(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(36);
}

/** The demo agent's reply to a chat request. */
export function demoAgentReply(body: ChatRequest): DemoReply {
  const context = readRequest(body);
  const step = stepFor(context);
  const prompt = Math.ceil(context.size / 4) + 20;
  if ('answer' in step) {
    // A few words a chunk: it streams like a model, and a long answer takes seconds, not minutes.
    const words = step.answer.split(/(?<= )/);
    const chunks: string[] = [];
    for (let i = 0; i < words.length; i += 3) chunks.push(words.slice(i, i + 3).join(''));
    return { kind: 'text', chunks, chunkDelayMs: 15, usage: { prompt, completion: Math.ceil(step.answer.length / 4) } };
  }
  const prefix = `call_${context.asker === 'subagent' ? 'sub_' : ''}${tag(context.userText)}_${context.messageCount}`;
  const calls = step.calls.map((c, i) => ({ id: `${prefix}_${i}`, name: c.name, arguments: JSON.stringify(c.args) }));
  return {
    kind: 'toolCalls',
    text: step.say,
    calls,
    usage: { prompt, completion: Math.ceil((step.say.length + calls.reduce((n, c) => n + c.arguments.length, 0)) / 4) },
  };
}
