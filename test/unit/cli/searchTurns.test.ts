import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import type { Message } from '@mariozechner/pi-ai';
import { whenOption } from '../../../src/cli/commands/search';
import type { SessionWriter } from '../../../src/core/store/sessionWriter';
import { braidIn } from '../../support/cli';
import { addTurn, assistantMessage, openStore, tempDir, userMessage } from '../../support/store';

// `braid search` looks in everything a turn said (prompts, answers, thinking, tool calls and their
// output), names the matching turns with a snippet, filters by changed file, model and dates, and
// follows rewinds, their undo, forks and deletes.

const root = tempDir('braid-search-turns-');
after(() => fs.rmSync(root, { recursive: true, force: true }));
const WORKSPACE = '/projects/zoo';

const braid = (...args: string[]) => braidIn(['--data-dir', root, ...args], { cwd: WORKSPACE });

interface JsonResult {
  id: string;
  turns: Array<{ turn: number; snippet: string; match: [number, number] | null; start: number; end: number }>;
}

async function found(...args: string[]): Promise<JsonResult[]> {
  const r = await braid('search', ...args, '--json');
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as JsonResult[];
}

/** A turn with thinking, a shell call changing a file, the call's output and an answer. */
async function toolTurn(w: SessionWriter, words: { prompt: string; thought: string; command: string; output: string; answer: string; file: string }) {
  const turn = await w.beginTurn('p-tool', { provider: 'test', id: 'zebra-model', thinking: 'off' });
  await w.appendMessage(userMessage(words.prompt));
  const call = { type: 'toolCall' as const, id: 'call_1', name: 'bash', arguments: { command: words.command } };
  await w.appendMessage({ ...assistantMessage(''), content: [{ type: 'thinking', thinking: words.thought }, call], stopReason: 'toolUse' } as Message);
  await w.append({ t: 'file_change', turn, toolCallId: 'call_1', path: words.file, before: null, after: null });
  const result = { role: 'toolResult', toolCallId: 'call_1', toolName: 'bash', content: [{ type: 'text', text: words.output }], isError: false, timestamp: 1 };
  await w.appendMessage(result as Message);
  await w.appendMessage(assistantMessage(words.answer));
  await w.endTurn('completed');
}

let zoo = '';
let other = '';

test('setup: a session with a tool turn, and another one', async () => {
  const store = await openStore(root);
  const s = await store.create({ workspaceDir: WORKSPACE });
  const w = await store.openWriter(s.id);
  await addTurn(w, 'hello there', 'hi, nothing about animals yet');
  await toolTurn(w, {
    prompt: 'count the animals',
    thought: 'the capybara census is in a CSV file',
    command: 'npm run wombatcount',
    output: 'counted 12 quokkas in the enclosure, all healthy and well fed today',
    answer: 'There are twelve pelicans',
    file: 'src/zoo/census.ts',
  });
  await addTurn(w, 'and the pelicans?', 'the pelicans were counted in turn 2');
  await w.close();
  zoo = s.id;
  const t = await store.create({ workspaceDir: WORKSPACE });
  const w2 = await store.openWriter(t.id);
  await addTurn(w2, 'unrelated question', 'an answer about quokkas too');
  await w2.close();
  other = t.id;
  await store.close();
});

test('answers, thinking, tool calls and tool output are searched; results name the turns with a snippet', async () => {
  for (const word of ['capybara', 'wombatcount', 'twelve']) {
    const r = await found(word);
    assert.deepEqual(
      r.map((x) => [x.id, x.turns.map((t) => t.turn)]),
      [[zoo, [2]]],
      word,
    );
  }
  const quokka = await found('quokka');
  assert.deepEqual(quokka.map((x) => x.id).sort(), [zoo, other].sort(), 'a prefix of a word in a tool output and in an answer');
  const hit = quokka.find((x) => x.id === zoo)!.turns[0]!;
  assert.match(hit.snippet, /counted 12 quokkas in the enclosure/);
  assert.equal(hit.snippet.slice(hit.match![0], hit.match![1]).toLowerCase(), 'quokka');
  assert.ok(hit.start > 0 && hit.end > hit.start, 'the turn span in the log');
  assert.deepEqual(
    (await found('pelicans')).find((x) => x.id === zoo)!.turns.map((t) => t.turn),
    [2, 3],
    'every matching turn, in order',
  );
  assert.deepEqual(
    (await found('hello quokka', '--all')).map((x) => [x.id, x.turns.map((t) => t.turn)]),
    [[zoo, [0, 1, 2]]],
    'every word in the session, each in a turn of its own; the turns saying any of them (the title, from the first prompt, says hello)',
  );
  assert.deepEqual(await found('hello nowhere'), [], 'every word');
  const text = (await braid('search', 'pelicans')).out;
  assert.match(text, /\n {4}turn 2: There are twelve pelicans\n {4}turn 3: .*pelicans/);
});

test('--file finds the sessions and turns that changed a file; --model and the dates filter', async () => {
  assert.deepEqual(
    (await found('--file', 'src/zoo/census.ts')).map((x) => [x.id, x.turns.map((t) => t.turn)]),
    [[zoo, [2]]],
  );
  assert.deepEqual((await found('--file', 'census.ts')).length, 1, 'the end of a path');
  assert.deepEqual((await found('--file', `${WORKSPACE}/src/zoo/census.ts`)).length, 1, 'a longer path');
  assert.deepEqual(await found('--file', 'sus.ts'), [], 'a path ends at a folder');
  assert.match((await braid('search', '--file', 'census.ts')).out, /turn 2: changed src\/zoo\/census.ts/);
  assert.deepEqual(
    (await found('quokka', '--file', 'census.ts')).map((x) => x.id),
    [zoo],
  );
  assert.deepEqual((await found('quokka', '--model', 'test-MODEL')).map((x) => x.id).sort(), [zoo, other].sort());
  assert.deepEqual(await found('quokka', '--model', 'zebra'), [], 'the session model is its last turn');
  assert.equal((await found('quokka', '--since', '1d')).length, 2);
  assert.deepEqual(await found('quokka', '--until', '2000-01-01'), []);
  assert.deepEqual(await found('quokka', '--since', '2999-01-01T00:00:00Z'), []);
  assert.equal((await braid('search', 'x', '--since', 'yesterday')).code, 2);
  assert.equal((await braid('search')).code, 2, 'words or a file');
  assert.equal(whenOption('2026-12-01', 'until'), Date.parse('2026-12-02T00:00:00Z'), 'a date takes in its whole day');
  assert.equal(whenOption('2w', 'since', 1_000_000_000_000), 1_000_000_000_000 - 14 * 86_400_000);
});

test('a rewind takes its turns out of search, its undo brings them back, a fork and a delete follow', async () => {
  assert.equal((await braid('rewind', zoo, '--turn', '2')).code, 0);
  assert.deepEqual(
    (await found('capybara')).map((x) => x.id),
    [],
    'rewound',
  );
  assert.deepEqual(
    (await found('--file', 'census.ts')).map((x) => x.id),
    [],
    'rewound',
  );
  assert.deepEqual(
    (await found('hello')).map((x) => x.id),
    [zoo],
    'the turn kept',
  );
  assert.equal((await braid('undo-rewind', zoo)).code, 0);
  assert.deepEqual(
    (await found('capybara')).map((x) => x.turns.map((t) => t.turn)),
    [[2]],
    'back after the undo',
  );
  const forked = await braid('fork', zoo, '--turn', '2', '--json');
  assert.equal(forked.code, 0, forked.err);
  const fork = (JSON.parse(forked.out) as { id: string }).id;
  assert.deepEqual((await found('capybara')).map((x) => x.id).sort(), [zoo, fork].sort(), 'the fork holds turn 2');
  assert.deepEqual(
    (await found('pelicans')).find((x) => x.id === fork)?.turns.map((t) => t.turn),
    [2],
    'not turn 3',
  );
  assert.equal((await braid('rename', zoo, 'Giraffe notes')).code, 0);
  assert.deepEqual(
    (await found('giraffe')).map((x) => [x.id, x.turns.map((t) => t.turn)]),
    [[zoo, [0]]],
    'the title is turn 0',
  );
  assert.equal((await braid('delete', zoo)).code, 0);
  assert.deepEqual(
    (await found('capybara')).map((x) => x.id),
    [fork],
    'deleted',
  );
});

test('a turn another process ended before it saved the index is found by a fresh search', async () => {
  const data = tempDir('braid-search-unsaved-');
  // The writer's index saves a minute after a change: the turn's end is in the log only.
  const store = await openStore(data, { saveDelayMs: 60_000 });
  try {
    const s = await store.create({ workspaceDir: WORKSPACE });
    const w = await store.openWriter(s.id);
    await addTurn(w, 'where is the okapi', 'the okapi sleeps behind the marmosets');
    const r = await braidIn(['--data-dir', data, 'search', 'marmosets', '--json'], { cwd: WORKSPACE });
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(
      (JSON.parse(r.out) as JsonResult[]).map((x) => [x.id, x.turns.map((t) => t.turn)]),
      [[s.id, [1]]],
    );
    await w.close();
  } finally {
    await store.close();
    fs.rmSync(data, { recursive: true, force: true });
  }
});
