import assert from 'node:assert/strict';
import { test } from 'node:test';
import { turnResults } from '../../../src/core/index/turnSnippet';
import { RevealedTurn } from '../../../media/src/turnReveal';
import { turnsKey } from '../../../media/src/requests';
import { toEntries } from '../../../src/vscode/chat/transcript';
import { turnTarget } from '../../../src/vscode/chat/turnReveal';
import { matchingTurns, resultPicks, shownTurns } from '../../../src/vscode/commands/sessionPicks';
import { fauxAssistantMessage, fauxRead, sessionFixture } from '../../support/session';

// A search result opens its session at the matching turn: the host names the turn's first and
// last entries from the log, the page finds them among its entries (paging back when they are
// not there yet), opens the request that hides them and brings the first match on screen.
test('a matching turn is found in the transcript, even inside a closed request, and its first match is the entry shown', async () => {
  const f = await sessionFixture({ 'notes.md': '# Notes\n' });
  try {
    f.faux.setResponses([
      fauxAssistantMessage('Let me look at it.'),
      fauxRead('notes.md'),
      fauxAssistantMessage('The quillwort shade is the accent colour.'),
      fauxAssistantMessage('Read them; the accent stays.'),
    ]);
    const session = await f.open();
    for (const prompt of ['Describe the palette', 'continue', 'Read the notes']) {
      await session.submit(prompt);
      await session.waitForIdle();
    }
    const [result] = f.store.index.searchTurns('Quillw', {});
    assert.deepEqual(
      result?.turns.map((t) => t.turn),
      [2],
    );
    const log = f.store.layout.agentLog(f.store.locate(session.id));
    const target = turnTarget(log, result!.turns[0]!, 'Quillw')!;
    const entries = toEntries(f.store.history(session.id).messages);
    const keys = entries.map((e) => e.key);
    const [continued, card, answer] = keys.slice(keys.indexOf(target.from), keys.indexOf(target.to) + 1);
    assert.deepEqual(
      { turn: target.turn, words: target.words, from: entries[keys.indexOf(continued!)], card: entries[keys.indexOf(card!)]?.kind },
      { turn: 2, words: ['quillw'], from: entries.find((e) => e.kind === 'user' && e.text === 'continue'), card: 'tool' },
    );
    assert.equal(entries[keys.indexOf(answer!)]?.kind === 'assistant' && entries[keys.indexOf(answer!)]!.key, target.to);

    const turn = new RevealedTurn({ id: 'r1', ...target });
    const newestPage = entries.slice(keys.indexOf(target.to) + 1);
    assert.equal(turn.locate(newestPage), false, 'not on a page without its first entry: the page asks for older ones');
    assert.equal(turn.found, false);
    assert.equal(turn.locate(entries), true);
    assert.deepEqual(
      keys.filter((k) => turn.has(k)),
      [continued, card, answer],
    );
    assert.equal(turn.focus(entries), target.to, 'the answer saying the word, not the prompt before it');
    // "continue" follows up the first request, which is closed (not the newest): its toggle opens.
    const firstRequest = turnsKey(keys[0]!);
    assert.deepEqual(turn.closedToggles(entries, new Map()), [firstRequest]);
    assert.deepEqual(turn.closedToggles(entries, new Map([[firstRequest, true]])), []);

    assert.equal(turnTarget(log, { turn: 0, start: -1, end: 0 }, 'Quillw'), undefined, 'a title match opens the session as it is');
    // A turn opened with no words (a blamed line's): the same entries, nothing marked, its first entry shown.
    const unmarked = turnTarget(log, result!.turns[0]!)!;
    assert.deepEqual(unmarked, { ...target, words: [] });
    assert.deepEqual(turnTarget(log, result!.turns[0]!, ' - '), unmarked, 'a query without words marks nothing');
    const plain = new RevealedTurn({ id: 'r2', ...unmarked });
    assert.equal(plain.pattern, undefined);
    assert.equal(plain.locate(entries), true);
    assert.equal(plain.focus(entries), target.from);
    await session.close();
  } finally {
    await f.cleanup();
  }
});

test("Open Session's lines: a session with its first matching turn, then a line for each further one, each opening at its turn", async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('The accent is teal.'), fauxAssistantMessage('Nothing here.'), fauxAssistantMessage('Accents stay.')]);
    const session = await f.open();
    for (const prompt of ['Pick the palette', 'Write the docs', 'Check it']) {
      await session.submit(prompt);
      await session.waitForIdle();
    }
    const [{ row, turns }] = f.store.index.searchTurns('accent', {}) as [{ row: Parameters<typeof resultPicks>[0]; turns: [] }];
    const lines = resultPicks(row, turns.length, turnResults(f.store.layout, row, turns.slice(0, shownTurns(0)), 'accent'));
    assert.deepEqual(
      lines.map((l) => [l.label, l.description, l.hit?.turn]),
      [
        ['Pick the palette', '3 turns · turn 1 (+1 more)', 1],
        ['$(arrow-small-right) turn 3', 'Accents stay.', 3],
      ],
    );
    assert.equal(lines[0]!.detail, 'The accent is teal.');
    assert.ok(lines.every((l) => l.id === session.id));
    assert.equal(shownTurns(9), 4);
    assert.equal(shownTurns(10), 1, 'past the first sessions, a result reads only its first turn');
    const one = resultPicks(row, 2, turnResults(f.store.layout, row, turns.slice(0, 1), 'accent'));
    assert.equal(one.length, 1, 'the further turns the lines do not show are counted in the session line');
    const title = { turn: 0, start: -1, end: 0 };
    const first = { turn: 1, start: 0, end: 10 };
    assert.deepEqual(matchingTurns([title, first]), [first], 'a title that is its first prompt: the line points at the turn');
    assert.deepEqual(matchingTurns([title]), [title], 'a title match alone: the session line says so');
    await session.close();
  } finally {
    await f.cleanup();
  }
});
