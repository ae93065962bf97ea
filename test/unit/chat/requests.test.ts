import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatModel, type ViewEntry } from '../../../media/src/chatModel';
import { collapseRequests, requestLink, requestSpans, turnsKey } from '../../../media/src/requests';
import { toEntries } from '../../../src/vscode/chat/transcript';
import { fauxAssistantMessage, sessionFixture } from '../../support/session';

test('a retry sends a prompt of the request again; a follow-up is a bare "go on"; anything else starts a request', () => {
  const request = ['Fix the failing test in parser.ts'];
  assert.equal(requestLink('fix the failing test in  parser.ts ', request), 'retry');
  for (const text of ['continue', 'Continue.', 'go on!', 'Yes', 'ok', 'keep going…', 'try again']) assert.equal(requestLink(text, request), 'follow-up', text);
  for (const text of ['continue with the lexer instead', 'yes, but rename it first', 'Now add a changelog line', 'no'])
    assert.equal(requestLink(text, request), undefined, text);
});

test('the turns of one request, in a transcript a session wrote: its retry and follow-up join it, a new question starts the next', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([
      fauxAssistantMessage('Looking…'),
      fauxAssistantMessage('Fixed the parser.'),
      fauxAssistantMessage('All tests pass now.'),
      fauxAssistantMessage('Added.'),
      fauxAssistantMessage('Done.'),
    ]);
    const session = await f.open();
    for (const prompt of ['Fix the failing test in parser.ts', 'Fix the failing test in parser.ts', 'continue', 'Now add a changelog line', 'yes']) {
      await session.submit(prompt);
      await session.waitForIdle();
    }
    const entries = toEntries(f.store.history(session.id).messages);
    const spans = requestSpans(entries);
    const prompts = (i: number) => [spans[i]!.start, ...spans[i]!.turns].map((at) => (entries[at] as { text: string }).text);
    assert.deepEqual(prompts(0), ['Fix the failing test in parser.ts', 'Fix the failing test in parser.ts', 'continue']);
    assert.deepEqual(prompts(1), ['Now add a changelog line', 'yes']);
    assert.equal(spans[0]!.end, spans[1]!.start);
    assert.equal(spans[1]!.end, entries.length);

    // Listed: the older request shows its first turn and "2 more turns"; the newest is open.
    const listed = collapseRequests(entries, new Map());
    const toggles = listed.filter((e) => e.kind === 'turns');
    assert.deepEqual(
      toggles.map((t) => [t.more, t.open]),
      [
        [2, false],
        [1, true],
      ],
    );
    assert.ok(!listed.some((e) => e.kind === 'assistant' && e.text === 'All tests pass now.'), 'a collapsed turn is not listed');
    assert.equal(listed[2], toggles[0], 'the toggle follows the first turn (its prompt and answer)');
    // Opened by the user, every entry is listed again.
    const opened = collapseRequests(entries, new Map([[toggles[0]!.key, true]]));
    assert.deepEqual(
      opened.filter((e) => e.kind !== 'turns'),
      entries,
    );
    await session.close();
  } finally {
    await f.cleanup();
  }
});

test('a turn Braid sent itself (context by braid) belongs to the request before it; context by another tool is not a turn', () => {
  const entries: ViewEntry[] = [
    { kind: 'context', key: 'c0', by: 'claude-code', what: 'environment', text: 'cwd' },
    { kind: 'user', key: 'u1', messageId: 'u1', text: 'Make the build green' },
    { kind: 'assistant', key: 'a1', text: 'Working.', thinking: '' },
    { kind: 'context', key: 'g1', by: 'braid', what: 'goal', text: 'Go on toward the goal.' },
    { kind: 'assistant', key: 'a2', text: 'Green.', thinking: '' },
    { kind: 'context', key: 'c1', by: 'codex', what: 'reminder', text: 'r' },
    { kind: 'pending', key: 'req:1', requestId: '1', text: 'Ship it' },
  ];
  const spans = requestSpans(entries);
  assert.deepEqual(spans, [
    { start: 1, turns: [3], end: 6 },
    { start: 6, turns: [], end: 7 },
  ]);
  const listed = collapseRequests(entries, new Map());
  assert.deepEqual(
    listed.map((e) => e.key),
    ['c0', 'u1', 'a1', turnsKey('u1'), 'req:1'],
  );
});

test('a held prompt that failed unsent leaves the transcript, and the page can read its text first', () => {
  const model = new ChatModel();
  model.applySnapshot({ session: null, live: [], cursor: 0 });
  model.addPending('r1', 'a prompt to rewrite');
  assert.equal(model.pendingText('r1'), 'a prompt to rewrite');
  model.applyFrames('', [{ kind: 'turn-terminal', requestId: 'r1', outcome: 'failed', error: 'The model refused.', unsent: true, cursor: 1 }]);
  assert.equal(model.pendingText('r1'), undefined);
  assert.ok(!model.entries.some((e) => e.kind === 'pending'));
  assert.ok(
    model.entries.some((e) => e.kind === 'status' && e.text === 'The model refused.'),
    'why it failed still shows',
  );
  assert.equal(model.running, undefined);
});
