import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Api, Model } from '@mariozechner/pi-ai';
import { SUGGESTION_REQUEST, suggestionsWanted, suggestionText } from '../../../src/core/session/suggestion';
import type { UsageRecord } from '../../../src/core/wire/records';
import { ScriptedModelServer } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';

// Next-prompt suggestions over real HTTP: pi-ai's openai-completions client against the scripted
// server, which records every request byte for byte as the provider would see it.
const server = new ScriptedModelServer();
let f: SessionFixture;
before(async () => {
  await server.start();
  f = await sessionFixture({ 'data.json': '{"a":1}\n' });
});
after(async () => {
  await f.cleanup();
  await server.close();
});

/** The scripted model as one that thinks, at `high`: the turns' requests carry the effort, a suggestion's must not. */
const thinkingModel = () => {
  const { model } = server.modelChoice();
  return { model: { ...model, reasoning: true, compat: { ...model.compat, supportsReasoningEffort: true } } as Model<Api>, thinking: 'high' };
};

test("a suggestion sends the last turn's system prompt, tools and history byte for byte, then the request; thinking off; only its usage is recorded", async () => {
  server.enqueue(
    { kind: 'toolCalls', text: 'Reading it.', calls: [{ id: 'r1', name: 'read_file', arguments: '{"path":"data.json"}' }] },
    { kind: 'text', chunks: ['It holds ', 'a = 1.'] },
    { kind: 'text', chunks: ['"Add a field b ', 'to data.json"'], usage: { prompt: 900, completion: 8, cached: 880 } },
  );
  const session = await f.open({ model: thinkingModel });
  await session.submit('what is in data.json?');
  await session.waitForIdle();
  const turn = server.requests.at(-1)!.body;
  const historyBefore = session.messages.length;
  const recordsBefore = f.records(session.id).length;
  const logged = f.store.history(session.id).messages.length;

  const suggestion = await session.suggest();

  assert.equal(suggestion, 'Add a field b to data.json', 'the quotes are taken off');
  const asked = server.requests.at(-1)!.body;
  assert.equal(turn.reasoning_effort, 'high', "the turn's requests think");
  assert.equal(asked.reasoning_effort, undefined, 'the suggestion does not');
  const prefix = asked.messages!.slice(0, turn.messages!.length);
  assert.equal(
    JSON.stringify(prefix),
    JSON.stringify(turn.messages),
    "the last turn's messages (the system prompt first) are the suggestion's prefix, byte for byte",
  );
  assert.equal(JSON.stringify(asked.tools), JSON.stringify(turn.tools), 'the same tools, in the same order');
  assert.ok((turn.tools ?? []).length > 0);
  assert.deepEqual(
    asked.messages!.slice(turn.messages!.length).map((m) => [m.role, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]),
    [
      ['assistant', 'It holds a = 1.'],
      ['user', SUGGESTION_REQUEST],
    ],
    "after the prefix: the turn's answer, then the request",
  );

  assert.equal(session.messages.length, historyBefore, 'the history is unchanged');
  assert.equal(f.store.history(session.id).messages.length, logged, 'the log holds no suggestion');
  const added = f.records(session.id).slice(recordsBefore);
  assert.deepEqual(
    added.map((r) => [r.t, (r as { purpose?: string }).purpose]),
    [['usage', 'suggestion']],
    'only the call is recorded',
  );
  const usage = added[0] as UsageRecord;
  assert.equal(usage.cacheRead, 880, "the provider's cached tokens are counted");
  assert.doesNotMatch(JSON.stringify(f.records(session.id)), /Add a field b/, 'the suggestion is written nowhere');
  assert.equal(f.store.index.sessionUsage(session.id).own.calls, 3, 'the suggestion counts as a call of the session');
});

test('NONE gives no suggestion; a tool call in the answer is never run; the usage of both is recorded', async () => {
  server.enqueue({ kind: 'text', chunks: ['Done.'] }, { kind: 'text', chunks: ['NONE'] });
  const session = await f.open({ model: () => server.modelChoice() });
  await session.submit('say done');
  await session.waitForIdle();
  assert.equal(await session.suggest(), undefined);

  server.enqueue({ kind: 'toolCalls', calls: [{ id: 'x', name: 'write_file', arguments: '{"path":"pwned.txt","content":"x"}' }] });
  assert.equal(await session.suggest(), undefined, 'an answer without text suggests nothing');
  assert.equal(f.approvals.length, 0, 'the tool call was never executed');
  assert.equal(f.records(session.id).filter((r) => r.t === 'tool').length, 0, 'no tool record');
  assert.deepEqual(
    f
      .records(session.id)
      .filter((r) => r.t === 'usage')
      .map((r) => (r as UsageRecord).purpose ?? 'turn'),
    ['turn', 'suggestion', 'suggestion'],
  );
});

test('a suggestion asked while a turn runs is none, and asks nothing', async () => {
  server.enqueue({ kind: 'text', chunks: ['Slow ', 'answer.'], chunkDelayMs: 150 });
  const session = await f.open({ model: () => server.modelChoice() });
  const asked = server.requests.length;
  let during: Promise<string | undefined> | undefined;
  session.onEvent((e) => {
    if (e.type === 'text-delta' && !during) during = session.suggest();
  });
  await session.submit('slowly');
  await session.waitForIdle();
  assert.equal(await during, undefined);
  assert.equal(server.requests.length, asked + 1, 'only the turn asked the model');
});

test('suggestionsWanted: auto asks only an OpenAI-compatible server on this machine; on and off say so', () => {
  const local = (baseUrl: string) => ({ provider: 'openai-compatible', baseUrl });
  assert.equal(suggestionsWanted('auto', local('http://127.0.0.1:11434/v1')), true);
  assert.equal(suggestionsWanted('auto', local('http://localhost:8080/v1')), true);
  assert.equal(suggestionsWanted('auto', local('http://LOCALHOST:8080/v1')), true);
  assert.equal(suggestionsWanted('auto', local('http://[::1]:8000/v1')), true);
  assert.equal(suggestionsWanted('auto', local('https://api.together.xyz/v1')), false, 'a remote OpenAI-compatible server is metered');
  assert.equal(suggestionsWanted('auto', local('http://127.0.0.1.example.com/v1')), false);
  assert.equal(suggestionsWanted('auto', local('not a url')), false);
  assert.equal(suggestionsWanted('auto', { provider: 'anthropic', baseUrl: 'https://api.anthropic.com' }), false);
  assert.equal(suggestionsWanted('auto', { provider: 'vscode-lm', baseUrl: '' }), false);
  assert.equal(suggestionsWanted('on', { provider: 'anthropic', baseUrl: 'https://api.anthropic.com' }), true);
  assert.equal(suggestionsWanted('off', local('http://127.0.0.1:11434/v1')), false);
});

test('suggestionText: one clean line, or none', () => {
  assert.equal(suggestionText('Run the tests'), 'Run the tests');
  assert.equal(suggestionText('  “Run the tests”  \n'), 'Run the tests');
  assert.equal(suggestionText('Next prompt: `Commit this`'), 'Commit this');
  assert.equal(suggestionText('Run `ls -la`'), 'Run `ls -la`', 'a quote the prompt ends with stays');
  assert.equal(suggestionText('"Run `ls -la`"'), 'Run `ls -la`', 'the quotes around it go');
  assert.equal(suggestionText('`git status` first'), '`git status` first');
  assert.equal(suggestionText('\n\nAdd   a\ttest\nBecause it is missing.'), 'Add a test', 'the first line only, whitespace collapsed');
  assert.equal(suggestionText('<think>The user will want tests.</think>\nWrite the tests'), 'Write the tests');
  assert.equal(suggestionText('Fix\u202e the\u0007 bug'), 'Fix the bug', 'no control or bidi characters');
  assert.equal(suggestionText('NONE'), undefined);
  assert.equal(suggestionText('none.'), undefined);
  assert.equal(suggestionText('  '), undefined);
  assert.equal(suggestionText('<think>hmm'), undefined, 'a thought cut short suggests nothing');
  assert.equal(suggestionText('word '.repeat(40)), undefined, 'an answer that ignored the request is dropped, never cut');
});
