import assert from 'node:assert/strict';
import { test } from 'node:test';
import { oneLine, shortLine } from '../../src/cli/terminalText';
import { previewOf } from '../../src/core/format/messageText';
import { autoTitle, cutTitle, sessionLabel, sessionTitle, shownTitle, storedTitleLabel } from '../../src/core/format/titles';
import { describeModelError } from '../../src/core/session/modelErrors';
import { SessionLog } from '../../src/core/session/sessionLog';
import { suggestionText } from '../../src/core/session/suggestion';
import { resultText, toolSummary } from '../../src/vscode/chat/transcript';
import { historyPicks, turnPicks } from '../../src/vscode/commands/promptPicks';

// Every helper that shapes a prompt or a model's text for a display (a title, a preview, a label,
// a one-line summary) reads only the text's start: given 60 MB it takes milliseconds (a whole
// read took minutes: ICU's segmenter slows down with the length of its text), and what it
// returns is the same whatever follows that start.

const MB = 1024 * 1024;

/** A string V8 holds flat, so that no helper is charged for flattening what the test built. */
function flat(text: string): string {
  /\0/.test(text);
  return text;
}

/** An ordinary prompt's start, longer than any helper reads (a stored title's cut reads the most: 201 x 64 units). */
const START = flat(
  `Please fix the parser.\nIt fails on nested lists; ${'read src/parser.ts and the tests under test/, then explain what goes wrong and fix it. '.repeat(200)}`,
);
/** Two 60 MB prompts with that start and different rests: runs of spaces and words, one word without a space. */
const SPACED = flat(START + ' \n word'.repeat((60 * MB) / 7));
const UNBROKEN = flat(START + 'x'.repeat(60 * MB));

/** Generous: each of these takes milliseconds; a helper that reads the whole text takes seconds to minutes. */
const LIMIT_MS = 3000;

/** What `make` returns, made within LIMIT_MS. */
function timed<T>(what: string, make: () => T): T {
  const started = performance.now();
  const out = make();
  const took = performance.now() - started;
  assert.ok(took < LIMIT_MS, `${what} took ${Math.round(took)} ms on a 60 MB text`);
  return out;
}

/** What `shape` makes of each 60 MB prompt: the same for both, and made within LIMIT_MS each. */
function shapesStart<T>(what: string, shape: (text: string) => T): T {
  const outs = [SPACED, UNBROKEN].map((text) => timed(what, () => shape(text)));
  assert.deepEqual(outs[1], outs[0], `${what} depends on more than the start of a text`);
  return outs[0]!;
}

test('titles of a 60 MB first prompt: automatic, shown, listed, and a stored title of 60 MB', () => {
  assert.equal(
    shapesStart('autoTitle', (t) => autoTitle(t)),
    'Please fix the parser. It fails on nested lists…',
  );
  assert.equal(
    shapesStart('sessionLabel', (t) => sessionLabel({ title: '', firstPrompt: t })),
    autoTitle(START),
  );
  assert.equal(
    shapesStart('sessionTitle', (t) => sessionTitle({ firstPrompt: t })),
    autoTitle(START),
  );
  // An older cut title (the first 50 characters) is recognised against the prompt's start.
  const old = Array.from(START.slice(0, 100).replace(/\s+/g, ' ')).slice(0, 50).join('');
  assert.equal(
    shapesStart('shownTitle', (t) => shownTitle({ title: old, titleSource: 'auto', firstPrompt: t })),
    autoTitle(START),
  );
  const stored = shapesStart('storedTitleLabel', (t) => storedTitleLabel(t));
  assert.ok(stored.length < 1000 && stored.endsWith('…'));
  assert.equal(
    shapesStart('cutTitle', (t) => cutTitle(t, 120)),
    cutTitle(START, 120),
  );
});

test("previews, the CLI's one line, and the error lines of a 60 MB text", () => {
  assert.equal(
    shapesStart('previewOf', (t) => previewOf(t)),
    previewOf(START),
  );
  assert.equal(
    shapesStart('shortLine', (t) => shortLine(t, 80)),
    oneLine(START.slice(0, 80)),
  );
  assert.equal(
    shapesStart('describeModelError', (t) => describeModelError(t)),
    'Please fix the parser.',
  );
  const reset = flat(`ECONNRESET ${UNBROKEN}`);
  assert.match(
    timed('describeModelError', () => describeModelError(reset)),
    /^The connection to the model broke mid-answer \(ECONNRESET Please fix the parser\.\n.{400,500}…\)\.$/s,
  );
  const lines: string[] = [];
  const log = new SessionLog({ trace() {}, info: (m) => lines.push(m), warn() {}, error() {} }, 'ses_x', '/w');
  shapesStart('SessionLog.turnEnded', (t) => log.turnEnded(1, 'failed', t.slice(START.indexOf('\n') + 1)));
  assert.ok(
    lines.every((l) => l.length < 500 && l.endsWith('…')),
    lines.join('\n'),
  );
});

test("the turn picker's, the prompt history's and a tool card's lines of 60 MB prompts", () => {
  const turns = shapesStart('turnPicks', (t) =>
    turnPicks([
      { turn: 1, text: 'first' },
      { turn: 2, text: t },
    ]).map((p) => [p.label, p.description]),
  );
  assert.deepEqual(turns, [
    ['Turn 2', cutTitle(START, 120)],
    ['Turn 1', 'first'],
  ]);
  assert.ok(turns[0]![1]!.length <= 120);
  const [history] = shapesStart('historyPicks', (t) => historyPicks([t]).map((p) => ({ label: p.label, detail: p.detail })));
  assert.deepEqual(history, { label: 'Please fix the parser.', detail: START.slice(0, 300) });
  assert.equal(
    shapesStart('toolSummary', (t) => toolSummary('bash', { command: t })),
    `bash ${START}`.slice(0, 200),
  );
  assert.ok(shapesStart('resultText', (t) => resultText([{ type: 'text', text: t }]).slice(0, 4000)) === START.slice(0, 4000));
});

test('a suggestion wrapped in a long run of quotes is read in one pass', () => {
  // A pattern for the closing quotes tried each start of such a run: 100,000 quotes took 15 s.
  const quotes = '"'.repeat(100_000);
  const started = performance.now();
  assert.equal(suggestionText(`${quotes}Add a test for it${quotes}`), 'Add a test for it');
  assert.equal(suggestionText(`"Add${quotes}x`), undefined, 'longer than a suggestion');
  assert.ok(performance.now() - started < LIMIT_MS);
});

test('a cut for a display never leaves half of a surrogate pair', () => {
  const emoji = '👍🏽';
  // "bash " and 194 units: the pair of 👍 would be units 200 and 201 of the summary.
  assert.equal(toolSummary('bash', { command: `${'x'.repeat(194)}${emoji}` }), `bash ${'x'.repeat(194)}`);
  assert.equal(shortLine(`${'x'.repeat(79)}${emoji}`, 80), 'x'.repeat(79));
  assert.equal(historyPicks([`${'x'.repeat(199)}${emoji}`])[0]!.label, 'x'.repeat(199));
  const card = resultText([{ type: 'text', text: `${'x'.repeat(3999)}${emoji}` }]);
  assert.equal(card, `${'x'.repeat(3999)}\n… 4 more characters`);
  assert.equal(describeModelError(`${'x'.repeat(499)}${emoji}`), 'x'.repeat(499));
});

test('a CRLF at the CLI’s cut is one line break, and characters a terminal acts on are cut before they are shown', () => {
  assert.equal(shortLine('ab\r\ncd', 3), 'ab ');
  assert.equal(shortLine('ab\r\ncd', 2), 'ab');
  assert.equal(shortLine('ab\u001bcd', 3), 'ab⟨U+001B⟩');
  assert.equal(oneLine('ab\u001bcd'), 'ab⟨U+001B⟩cd');
});
