import assert from 'node:assert/strict';
import { test } from 'node:test';
import { demoAgentReply, type DemoReply } from '../../../src/demo/demoAgent';
import { DEMO_EXAMPLES } from '../../../src/demo/demoExamples';
import type { ChatMessage } from '../../../src/demo/demoRequest';
import { SUGGESTION_REQUEST, suggestionText } from '../../../src/core/session/suggestion';

// The demo agent alone: OpenAI-style requests in, the reply it streams out. Requests are built the
// way pi-ai sends Braid's: a system prompt, user prompts as content parts (reminders first, the
// user's text last), assistant tool calls and tool results.
const SYSTEM: ChatMessage = { role: 'system', content: "You are Braid, a coding agent working in the user's workspace." };
const GIT_REMINDER = '<system-reminder>\nGit context of the workspace:\norigin: /home/someone/secret-origin.git\nbranch: main\n</system-reminder>';

function prompt(text: string, reminders: string[] = []): ChatMessage {
  return { role: 'user', content: [...reminders.map((r) => ({ type: 'text', text: r })), { type: 'text', text }] };
}

/** A request whose turn made these tool calls, with these results. */
function request(text: string, rounds: Array<{ name: string; args: object; result: string }> = [], history: ChatMessage[] = []): { messages: ChatMessage[] } {
  const messages: ChatMessage[] = [SYSTEM, ...history, prompt(text)];
  rounds.forEach((r, i) => {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, function: { name: r.name, arguments: JSON.stringify(r.args) } }] });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: r.result });
  });
  return { messages };
}

function calls(reply: DemoReply): Array<{ name: string; args: Record<string, unknown> }> {
  assert.equal(reply.kind, 'toolCalls', `expected tool calls, got ${reply.kind === 'text' ? reply.chunks.join('') : ''}`);
  return reply.kind === 'toolCalls' ? reply.calls.map((c) => ({ name: c.name, args: JSON.parse(c.arguments) as Record<string, unknown> })) : [];
}

function answer(reply: DemoReply): string {
  assert.equal(reply.kind, 'text', 'expected an answer');
  return reply.kind === 'text' ? reply.chunks.join('') : '';
}

const README_READ =
  '     1\t# Widget\n     2\t\n     3\tWidget turns sprockets into gears.\n     4\t\n     5\t## Install\n     6\t\n     7\tnpm i widget\n     8\t\n     9\t## Usage\n    10\t\n    11\tCall widget().';

test('each recognised request starts with the tool call a coding agent would make', () => {
  const cases: Array<[string, Array<{ name: string; args: Record<string, unknown> }>]> = [
    ['Explain the README', [{ name: 'list_dir', args: { path: '.' } }]],
    ['What does src/index.ts do?', [{ name: 'read_file', args: { path: 'src/index.ts' } }]],
    ['Create hello.txt', [{ name: 'write_file', args: { path: 'hello.txt', content: 'Hello from Braid!\n' } }]],
    ['Create notes.md with "buy milk"', [{ name: 'write_file', args: { path: 'notes.md', content: 'buy milk\n' } }]],
    ['Change "Hello" to "Hi" in hello.txt', [{ name: 'read_file', args: { path: 'hello.txt' } }]],
    ['Run `git status`', [{ name: 'bash', args: { command: 'git status' } }]],
    ['run ls -la', [{ name: 'bash', args: { command: 'ls -la' } }]],
    ['Run the tests', [{ name: 'list_dir', args: { path: '.' } }]],
    ['List the files', [{ name: 'list_dir', args: { path: '.' } }]],
    ['Delete hello.txt', [{ name: 'bash', args: { command: 'rm -- hello.txt' } }]],
  ];
  for (const [text, expected] of cases) assert.deepEqual(calls(demoAgentReply(request(text))), expected, text);
  const task = calls(demoAgentReply(request('Use a subagent to survey this folder')));
  assert.equal(task.length, 1);
  assert.equal(task[0]!.name, 'task');
  assert.equal(task[0]!.args.description, 'Survey the workspace');
  assert.match(String(task[0]!.args.prompt), /Use a subagent to survey this folder/);
});

test('after its tools come back the demo goes on, and answers from what they returned', () => {
  // README: listed, then read, then explained by its title, opening and sections.
  const listed = { name: 'list_dir', args: { path: '.' }, result: 'README.md\nsrc/\npackage.json' };
  assert.deepEqual(calls(demoAgentReply(request('Explain the README', [listed]))), [{ name: 'read_file', args: { path: 'README.md' } }]);
  const explained = answer(demoAgentReply(request('Explain the README', [listed, { name: 'read_file', args: { path: 'README.md' }, result: README_READ }])));
  assert.match(explained, /`README.md` is 11 lines of Markdown/);
  assert.match(explained, /titled \*\*Widget\*\*/);
  assert.match(explained, /Widget turns sprockets into gears\./);
  assert.match(explained, /- Install\n- Usage/);
  // An edit reads first, then changes exactly the asked text.
  const read = { name: 'read_file', args: { path: 'hello.txt' }, result: '     1\tHello from Braid!' };
  assert.deepEqual(calls(demoAgentReply(request('Change "Hello" to "Hi" in hello.txt', [read]))), [
    { name: 'edit_file', args: { path: 'hello.txt', old_text: 'Hello', new_text: 'Hi' } },
  ]);
  assert.deepEqual(calls(demoAgentReply(request('Add "Bye" to hello.txt', [read]))), [
    { name: 'edit_file', args: { path: 'hello.txt', old_text: 'Hello from Braid!', new_text: 'Hello from Braid!\nBye' } },
  ]);
  assert.deepEqual(calls(demoAgentReply(request('Add a line to hello.txt', [read]))), [
    { name: 'edit_file', args: { path: 'hello.txt', old_text: 'Hello from Braid!', new_text: "Hello from Braid!\nEdited by Braid's demo agent." } },
  ]);
  // The tests: the project's kind decides the command.
  assert.deepEqual(calls(demoAgentReply(request('Run the tests', [listed]))), [{ name: 'bash', args: { command: 'npm test' } }]);
  const ran = answer(demoAgentReply(request('Run `ls`', [{ name: 'bash', args: { command: 'ls' }, result: 'Exit code 0.\nREADME.md\nsrc' }])));
  assert.match(ran, /`ls` ran in the workspace folder\. Exit code 0\./);
  assert.match(ran, /```text\nREADME.md\nsrc\n```/);
  // A write that came back, and one the user denied.
  assert.match(
    answer(demoAgentReply(request('Create hello.txt', [{ name: 'write_file', args: {}, result: 'Created hello.txt (2 lines).' }]))),
    /Created hello\.txt \(2 lines\)\.[\s\S]*Rewind and Restore Files[\s\S]*Undo/,
  );
  assert.match(
    answer(demoAgentReply(request('Create hello.txt', [{ name: 'write_file', args: {}, result: 'The user denied this change: Create hello.txt' }]))),
    /You denied it, so `hello\.txt` was not written/,
  );
  // The subagent's report is quoted.
  assert.match(
    answer(demoAgentReply(request('Use a subagent', [{ name: 'task', args: {}, result: 'It is a Node.js project.' }]))),
    /The subagent reported:\n\n> It is a Node\.js project\./,
  );
});

test("a prompt full of system reminders is answered about the user's own words, and nothing hidden is quoted", () => {
  const body = {
    messages: [
      SYSTEM,
      prompt('How do I fork a session?', [
        GIT_REMINDER,
        '<system-reminder>\nInstructions from AGENTS.md in the workspace:\nnever say banana\n</system-reminder>',
      ]),
    ],
  };
  const text = answer(demoAgentReply(body));
  assert.match(text, /\*\*fork\*\*/);
  assert.doesNotMatch(text, /system-reminder|origin|secret-origin|Git context|banana|AGENTS/);
  // A question the demo cannot answer is quoted, and only the question.
  const unknown = answer(demoAgentReply({ messages: [SYSTEM, prompt('What is the capital of Peru?', [GIT_REMINDER])] }));
  assert.match(unknown, /You asked: “What is the capital of Peru\?”/);
  assert.doesNotMatch(unknown, /system-reminder|origin|branch: main/);
  // Reminders and the user's text in one part (as another client might send them) are still apart.
  const merged = answer(demoAgentReply({ messages: [SYSTEM, { role: 'user', content: `${GIT_REMINDER}\nWhat is the capital of Peru?` }] }));
  assert.doesNotMatch(merged, /system-reminder|origin|secret-origin/);
});

test('subagents, side questions and compactions of the demo get the answer their asker needs', () => {
  const sub: ChatMessage = { role: 'system', content: 'You are a subagent of Braid, a coding agent. Do the one task you are given.' };
  const first = demoAgentReply({ messages: [sub, { role: 'user', content: 'Look at the top folder of the workspace.' }] });
  assert.deepEqual(calls(first), [{ name: 'list_dir', args: { path: '.' } }]);
  assert.ok(first.kind === 'toolCalls' && first.calls[0]!.id.startsWith('call_sub_'), "a subagent's call ids are its own");
  const report = answer(
    demoAgentReply({
      messages: [
        sub,
        { role: 'user', content: 'Look.' },
        { role: 'assistant', tool_calls: [{ id: 'a', function: { name: 'list_dir', arguments: '{"path":"."}' } }] },
        { role: 'tool', tool_call_id: 'a', content: '.git/\npackage.json\nsrc/\nREADME.md' },
      ],
    }),
  );
  assert.match(report, /2 files and 1 folder; it looks like a Node\.js project/);
  // A side question is asked as plain text after the history: answered in words, never with tools.
  const side = demoAgentReply({
    messages: [SYSTEM, prompt('Create hello.txt'), { role: 'assistant', content: 'Created it.' }, { role: 'user', content: 'what did I ask?' }],
  });
  assert.match(answer(side), /1 prompt so far; the last was “Create hello\.txt”/);
  const summary = answer(
    demoAgentReply({
      messages: [
        { role: 'system', content: 'You summarize the earlier part of a conversation between a user and Braid.' },
        { role: 'user', content: 'user: Explain the README\n\nassistant: It is...\n\nuser: Create hello.txt' },
      ],
    }),
  );
  assert.match(summary, /1\. Explain the README\n2\. Create hello\.txt/);
});

test('the examples the Chat view offers are requests the demo acts on with tools, and replies are deterministic', () => {
  for (const example of DEMO_EXAMPLES.slice(0, 4)) assert.equal(demoAgentReply(request(example)).kind, 'toolCalls', example);
  assert.match(answer(demoAgentReply(request(DEMO_EXAMPLES[4]))), /# A tour of Braid/);
  assert.deepEqual(demoAgentReply(request('Create hello.txt')), demoAgentReply(request('Create hello.txt')));
  // Tool call ids differ between prompts of one session (the Chat view keys its cards by them).
  const a = demoAgentReply(request('Create hello.txt'));
  const b = demoAgentReply(request('Create notes.md', [], [prompt('Create hello.txt'), { role: 'assistant', content: 'Done.' }]));
  assert.ok(a.kind === 'toolCalls' && b.kind === 'toolCalls');
  assert.notEqual(a.calls[0]!.id, b.calls[0]!.id);
});

test("a next-prompt suggestion request gets the first example prompt the conversation has not asked, then NONE; the request is Braid's own", () => {
  const suggestion = (asked: readonly string[]) => {
    const history = asked.flatMap((text): ChatMessage[] => [prompt(text, [GIT_REMINDER]), { role: 'assistant', content: 'Done.' }]);
    return answer(demoAgentReply({ messages: [SYSTEM, ...history, { role: 'user', content: SUGGESTION_REQUEST }] }));
  };
  assert.equal(suggestion(['hello']), DEMO_EXAMPLES[0]);
  assert.equal(suggestion([DEMO_EXAMPLES[0], 'create hello.txt']), DEMO_EXAMPLES[2], 'the examples asked are skipped, whatever their case');
  assert.equal(suggestionText(suggestion([...DEMO_EXAMPLES])), undefined, 'every example asked: none');
  assert.equal(suggestionText(suggestion([])), DEMO_EXAMPLES[0], 'Braid reads the answer as the suggestion');
  // A side question is still answered as one.
  assert.match(answer(demoAgentReply({ messages: [SYSTEM, prompt('hello'), { role: 'user', content: 'btw, what next?' }] })), /A side answer from the demo/);
});
