import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completions, parseInput } from '../../../media/src/slashCommands';
import { SLASH_COMMANDS } from '../../../src/protocol/messages';

test('typing a slash offers the commands that match, and only at the start of the input', () => {
  assert.deepEqual(
    completions('/').map((c) => c.name),
    [...SLASH_COMMANDS],
  );
  assert.deepEqual(
    completions('/fo').map((c) => c.name),
    ['fork'],
  );
  assert.deepEqual(
    completions('/ne').map((c) => c.name),
    ['new'],
  );
  assert.deepEqual(
    completions('/c').map((c) => c.name),
    ['compact'],
  );
  assert.deepEqual(completions('/xyz'), []);
  assert.deepEqual(completions('hello /fo'), []);
  assert.deepEqual(completions('/fork now'), [], 'no list once an argument is typed');
});

test('the composer tells commands, side questions and prompts apart', () => {
  assert.deepEqual(parseInput('  /new '), { kind: 'command', name: 'new' });
  assert.deepEqual(parseInput('/USAGE'), { kind: 'command', name: 'usage' });
  assert.deepEqual(parseInput('/btw what does foo() return?'), { kind: 'btw', question: 'what does foo() return?' });
  assert.equal(parseInput('/btw').kind, 'error');
  assert.deepEqual(parseInput('/goal make the tests pass\nall of them'), { kind: 'goal', text: 'make the tests pass\nall of them' });
  assert.match((parseInput('/goal ') as { message: string }).message, /Type the goal after \/goal/);
  assert.match((parseInput('/deploy') as { message: string }).message, /Unknown command \/deploy/);
  assert.deepEqual(parseInput('//etc/hosts is a file'), { kind: 'prompt', text: '/etc/hosts is a file' });
  assert.deepEqual(parseInput('fix the bug'), { kind: 'prompt', text: 'fix the bug' });
  assert.deepEqual(parseInput('/ alone'), { kind: 'prompt', text: '/ alone' });
  assert.deepEqual(parseInput('/compact the schema work'), { kind: 'command', name: 'compact', arg: 'the schema work' });
  assert.deepEqual(parseInput('/history'), { kind: 'command', name: 'history' });
  assert.deepEqual(parseInput('/sessions  parser bug '), { kind: 'command', name: 'sessions', arg: 'parser bug' }, '/sessions takes a search');
  assert.match((parseInput('/new please') as { message: string }).message, /takes no argument/);
});

test('custom commands follow the built-in ones in the menu with their origin; a built-in name wins; typed, they go to the host as typed', () => {
  const custom = [
    { name: 'review', description: 'Review a file', origin: 'project' as const, argumentHint: '[file]' },
    { name: 'frontend:test', description: 'Run the frontend tests', origin: 'user' as const },
    { name: 'new', description: 'A project command named like a built-in', origin: 'project' as const },
  ];
  assert.deepEqual(
    completions('/', custom).map((c) => c.name),
    [...SLASH_COMMANDS, 'review', 'frontend:test'],
  );
  assert.deepEqual(completions('/re', custom), [
    { name: 'rewind', hint: 'Rewind to a prompt (with a preview of files)' },
    { name: 'remember', hint: 'Update the session memory: the model notes the durable facts' },
    { name: 'review', hint: '[file]  Review a file (project)' },
  ]);
  assert.deepEqual(
    completions('/frontend:', custom).map((c) => c.name),
    ['frontend:test'],
  );
  assert.deepEqual(parseInput('/review src/a.ts', custom), { kind: 'custom', text: '/review src/a.ts' });
  assert.deepEqual(parseInput('/frontend:test', custom), { kind: 'custom', text: '/frontend:test' });
  assert.deepEqual(parseInput('/new', custom), { kind: 'command', name: 'new' });
  assert.match((parseInput('/review src/a.ts') as { message: string }).message, /Unknown command \/review/);
  assert.match((parseInput('/deploy', custom) as { message: string }).message, /Commands: .*\/usage \/review \/frontend:test \(/);
});

test("an MCP server's prompt shows its arguments and server in the menu; typed, it goes to the host even before the menu listed it", () => {
  const prompts = [
    {
      name: 'mcp__everything__args-prompt',
      description: 'A prompt with arguments',
      origin: 'user' as const,
      argumentHint: 'city [state]',
      server: 'everything',
    },
  ];
  assert.deepEqual(completions('/mcp', prompts), [
    { name: 'mcp__everything__args-prompt', hint: 'city [state]  A prompt with arguments (MCP server everything)' },
  ]);
  assert.deepEqual(parseInput('/mcp__everything__args-prompt Paris', prompts), { kind: 'custom', text: '/mcp__everything__args-prompt Paris' });
  assert.deepEqual(parseInput('/mcp__other__p x'), { kind: 'custom', text: '/mcp__other__p x' });
});
