import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keysOf, pressKey, type PickerState } from '../../../src/cli/picker/pickerState';
import { pickerFrame } from '../../../src/cli/picker/terminalPicker';

// The terminal picker's keys without a terminal: raw input read as keys, and what each does.
const WORDS = ['alpha', 'beta', 'alphabet', 'gamma'];
const count = (query: string) => WORDS.filter((w) => w.includes(query)).length;

/** Presses every key of `input` from `state`; the state at the end and how the picker ended, if it did. */
function press(input: string, state: PickerState = { query: '', count: WORDS.length, selected: 0 }) {
  for (const key of keysOf(input)) {
    const next = pressKey(state, key, count);
    state = next.state;
    if (next.end) return { state, end: next.end };
  }
  return { state, end: undefined };
}

test('raw input is read as keys: arrows in both cursor modes, Enter, Esc alone, Ctrl+C, typed text; unknown sequences are skipped', () => {
  assert.deepEqual(
    keysOf('ab\x1b[A\x1bOB\r\x1b[15~c\x7f\x03').map((k) => (k.kind === 'text' ? `text:${k.text}` : k.kind)),
    ['text:ab', 'up', 'down', 'enter', 'text:c', 'backspace', 'interrupt'],
  );
  assert.deepEqual(keysOf('\x1b'), [{ kind: 'escape' }]);
});

test('the arrows move within the matches and stop at the ends; Enter picks the selected line', () => {
  assert.deepEqual(press('\x1b[B\x1b[B\r').end, { kind: 'picked', index: 2 });
  assert.deepEqual(press('\x1b[A\x1b[A\r').end, { kind: 'picked', index: 0 }, 'no line above the first');
  assert.deepEqual(press('\x1b[6~\r').end, { kind: 'picked', index: 3 }, 'Page Down stops at the last');
});

test('typing filters and resets the selection; Backspace and Ctrl+U widen again; Enter with nothing matching keeps the picker open', () => {
  assert.deepEqual(press('\x1b[Balph').state, { query: 'alph', count: 2, selected: 0 });
  assert.deepEqual(press('alphx').state, { query: 'alphx', count: 0, selected: 0 });
  assert.equal(press('alphx\r').end, undefined);
  assert.deepEqual(press('alphx\x7f\x1b[B\r').end, { kind: 'picked', index: 1 });
  assert.deepEqual(press('zz\x15').state, { query: '', count: 4, selected: 0 });
});

test('Esc and Ctrl+C cancel, Ctrl+C as an interrupt', () => {
  assert.deepEqual(press('al\x1b').end, { kind: 'cancelled', interrupt: false });
  assert.deepEqual(press('\x03').end, { kind: 'cancelled', interrupt: true });
});

test('the frame keeps the selected line in view, cut to the width, with its position when not all fit', () => {
  const lines = Array.from({ length: 30 }, (_, i) => ({ text: `session ${i} ${'x'.repeat(200)}`, value: i }));
  const frame = pickerFrame({ query: 'se', count: 30, selected: 25 }, lines, 'Pick', { columns: 60, rows: 24 });
  assert.equal(frame.length, 12, 'heading, query, a page of lines');
  assert.equal(frame[0], 'Pick (26 of 30)');
  assert.ok(frame.some((l) => l.includes('> session 25 ')));
  assert.ok(
    frame.every((l) => l.replaceAll('\x1b[7m', '').replaceAll('\x1b[0m', '').length <= 59),
    'no line wraps',
  );
});
