import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modeReminder } from '../../../src/core/session/modes';
import { demoAgentReply, type DemoReply } from '../../../src/demo/demoAgent';
import type { ChatMessage } from '../../../src/demo/demoRequest';
import { carryOutPlanPrompt, type TurnMode } from '../../../src/protocol/modes';

// The demo agent in Ask and Plan, with the mode reminder Braid itself writes: a request to change
// something is never tried; it reads, then answers (Ask) or writes a numbered plan (Plan); Carry
// Out Plan then does what the planned prompt asked.
const SYSTEM: ChatMessage = { role: 'system', content: "You are Braid, a coding agent working in the user's workspace." };

function prompt(text: string, mode: TurnMode): ChatMessage {
  const reminder = modeReminder(mode);
  const parts = reminder ? [{ type: 'text', text: `<system-reminder>\n${reminder}\n</system-reminder>` }] : [];
  return { role: 'user', content: [...parts, { type: 'text', text }] };
}

function request(text: string, mode: TurnMode, rounds: Array<{ name: string; args: object; result: string }> = [], history: ChatMessage[] = []) {
  const messages: ChatMessage[] = [SYSTEM, ...history, prompt(text, mode)];
  rounds.forEach((r, i) => {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, function: { name: r.name, arguments: JSON.stringify(r.args) } }] });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: r.result });
  });
  return { messages };
}

const names = (reply: DemoReply) => (reply.kind === 'toolCalls' ? reply.calls.map((c) => c.name) : ['(answer)']);
const answer = (reply: DemoReply) => (assert.equal(reply.kind, 'text'), reply.kind === 'text' ? reply.chunks.join('') : '');
const LISTED = { name: 'list_dir', args: { path: '.' }, result: 'README.md\npackage.json\nsrc/' };
const READ = { name: 'read_file', args: { path: 'hello.txt' }, result: '     1\tHello from Braid!' };

test('in Plan and Ask a request to change something starts with a read, never a write or a command', () => {
  for (const mode of ['plan', 'ask'] as const) {
    assert.deepEqual(names(demoAgentReply(request('Create hello.txt', mode))), ['list_dir'], mode);
    assert.deepEqual(names(demoAgentReply(request('Change "Hello" to "Hi" in hello.txt', mode))), ['read_file'], mode);
    assert.deepEqual(names(demoAgentReply(request('Change "Hello" to "Hi" in hello.txt', mode, [READ]))), ['(answer)'], mode);
    assert.deepEqual(names(demoAgentReply(request('Run `ls -la`', mode))), ['list_dir'], mode);
    assert.deepEqual(names(demoAgentReply(request('Delete hello.txt', mode))), ['list_dir'], mode);
  }
  // Agent and Auto-accept edits still act.
  assert.deepEqual(names(demoAgentReply(request('Run `ls -la`', 'agent'))), ['bash']);
  assert.deepEqual(names(demoAgentReply(request('Create hello.txt', 'auto-edit'))), ['write_file']);
});

test('Plan ends with the plan as numbered steps built from what it read, and says nothing changed', () => {
  const plan = answer(demoAgentReply(request('Change "Hello" to "Hi" in hello.txt', 'plan', [READ])));
  assert.match(plan, /“Hello” appears on 1 line: 1\./);
  assert.match(plan, /Here is the plan:\n\n1\. In `hello\.txt`, change “Hello” to “Hi” on line 1\.\n2\. /);
  assert.match(plan, /Nothing changed: this turn ran in Plan mode\. \*\*Carry Out Plan\*\*/);
  const create = answer(demoAgentReply(request('Create hello.txt', 'plan', [LISTED])));
  assert.match(create, /There is no `hello\.txt` yet\.[\s\S]*1\. Create `hello\.txt` with “Hello from Braid!”\./);
  assert.match(answer(demoAgentReply(request('Run the tests', 'plan', [LISTED]))), /1\. Run `npm test` in the workspace folder/);
});

test('Ask answers from what it read and never claims a command ran', () => {
  const ls = answer(demoAgentReply(request('Run `ls -la`', 'ask', [LISTED])));
  assert.match(ls, /From reading the folder: The top folder holds 2 files and 1 folder/);
  assert.match(ls, /`ls -la` did not run\. This turn runs in Ask mode/);
  assert.doesNotMatch(ls, /\bran in the workspace\b|Here is the plan/);
  const edit = answer(demoAgentReply(request('Change "Hello" to "Hi" in hello.txt', 'ask', [READ])));
  assert.match(edit, /`hello\.txt` has 1 line\. “Hello” appears on 1 line: 1\.\n\nI did not change it\./);
});

test('Carry Out Plan does what the planned prompt asked, in Agent mode', () => {
  const planned = answer(demoAgentReply(request('Change "Hello" to "Hi" in hello.txt', 'plan', [READ])));
  const history: ChatMessage[] = [prompt('Change "Hello" to "Hi" in hello.txt', 'plan'), { role: 'assistant', content: planned }];
  const carry = carryOutPlanPrompt(planned);
  assert.deepEqual(names(demoAgentReply(request(carry, 'agent', [], history))), ['read_file']);
  const edit = demoAgentReply(request(carry, 'agent', [READ], history));
  assert.ok(edit.kind === 'toolCalls');
  assert.deepEqual(JSON.parse(edit.calls[0]!.arguments), { path: 'hello.txt', old_text: 'Hello', new_text: 'Hi' });
});
