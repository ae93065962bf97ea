import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Message } from '@mariozechner/pi-ai';
import { braidIn } from '../../support/cli';
import { addTurn, assistantMessage, openStore, tempRoots, userMessage } from '../../support/store';

// `show --json` pinned byte for byte: JSON.stringify's layout with two spaces, the keys in their
// order, every character a terminal acts on written as \uXXXX, one newline at the end; the
// messages those of the effective history after a rewind (docs/cli.md, JSON shapes).
const roots = tempRoots();
after(roots.cleanup);

/** What JSON.stringify leaves raw and a terminal acts on (C1 controls, DEL, bidi and zero-width marks, BOM). */
const RAW_UNSAFE = /[\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** The expected bytes of a value: two-space JSON, those characters escaped in lower-case hex. */
function expectedJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(RAW_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

function toolResult(toolCallId: string, toolName: string, text: string, details?: unknown): Message {
  return {
    role: 'toolResult',
    toolCallId,
    toolName,
    content: [{ type: 'text', text }],
    isError: false,
    timestamp: Date.now(),
    ...(details ? { details } : {}),
  } as Message;
}

test('show --json prints the state, the effective messages and the todo list in a fixed layout', async () => {
  const root = roots.root();
  const store = path.join(root, 'store');
  const s = await openStore(store);
  const empty = await s.create({ workspaceDir: root, title: 'Nothing yet' });
  const state = await s.create({ workspaceDir: root, title: 'Pinned' });
  const writer = await s.openWriter(state.id);
  await addTurn(writer, 'first \u001b[2J prompt\r\nwith \u202e bidi \u0085 and \u2028', 'an answer \u009b31m\tdone');
  await writer.beginTurn('p-tools', { provider: 'test', id: 'test-model', thinking: 'off' });
  await writer.appendMessage(userMessage('plan it'));
  await writer.appendMessage(userMessage('the file you had open'), undefined, { by: 'vscode', kind: 'selection' });
  await writer.appendMessage({
    ...assistantMessage(''),
    content: [{ type: 'toolCall', id: 'c1', name: 'todo_write', arguments: {} }],
    stopReason: 'toolUse',
  } as Message);
  const todos = { todos: [{ text: 'write the test', status: 'in_progress' }] };
  await writer.appendMessage(toolResult('c1', 'todo_write', '[~] write the test', todos));
  await writer.appendMessage(assistantMessage('planned "quotes" and \\ slashes, ünïcode 🎉'));
  await writer.endTurn('completed');
  await addTurn(writer, 'third, to be rewound', 'gone');
  await writer.close();
  await s.close();
  const cli = (...args: string[]) => braidIn(['--data-dir', store, ...args], { cwd: root });
  assert.equal((await cli('rewind', state.id, '--turn', '3')).code, 0);

  const shown = await cli('show', state.id, '--json');
  assert.equal(shown.code, 0, shown.err);
  const value = JSON.parse(shown.out) as { state: { id: string; turnCount: number }; messages: Array<{ id: string; turn: number }>; todos: unknown };
  assert.equal(shown.out, expectedJson(value));
  assert.deepEqual(Object.keys(value), ['state', 'messages', 'todos']);
  assert.equal(value.state.id, state.id);
  assert.deepEqual(
    value.messages.map(({ id, ...rest }) => (assert.ok(id.length > 0), rest)),
    [
      { turn: 1, role: 'user', text: 'first \u001b[2J prompt\r\nwith \u202e bidi \u0085 and \u2028' },
      { turn: 1, role: 'assistant', text: 'an answer \u009b31m\tdone' },
      { turn: 2, role: 'user', text: 'plan it' },
      { turn: 2, role: 'user', text: 'the file you had open', injected: { by: 'vscode', kind: 'selection' } },
      { turn: 2, role: 'assistant', text: '' },
      { turn: 2, role: 'toolResult', text: '[~] write the test' },
      { turn: 2, role: 'assistant', text: 'planned "quotes" and \\ slashes, ünïcode 🎉' },
    ],
  );
  assert.deepEqual(value.todos, { turn: 2, items: [{ text: 'write the test', status: 'in_progress' }] });
  assert.match(shown.out, /\\u001b\[2J prompt\\r\\nwith \\u202e bidi \\u0085 and \u2028/);

  const none = await cli('show', empty.id, '--json');
  assert.equal(none.code, 0, none.err);
  const nothing = JSON.parse(none.out) as { messages: unknown[]; todos: unknown };
  assert.equal(none.out, expectedJson(nothing));
  assert.match(none.out, /\n {2}"messages": \[\],\n {2}"todos": null\n\}\n$/);
});
