/**
 * The terminal picker's state, without a terminal: the keys a chunk of raw input holds, and what
 * each key does to the query typed and the line selected. Kept pure so the keys can be tested
 * alone; sessionPicker.ts reads the terminal and draws.
 */

/** A key the picker acts on; `text` is what the user typed into the query. */
export type PickerKey =
  | { readonly kind: 'up' | 'down' | 'pageUp' | 'pageDown' | 'enter' | 'escape' | 'interrupt' | 'backspace' | 'clear' }
  | { readonly kind: 'text'; readonly text: string };

/** What the picker shows: the query, how many lines match it, which one is selected. */
export interface PickerState {
  readonly query: string;
  readonly count: number;
  /** The selected line's index; 0 when nothing matches. */
  readonly selected: number;
}

/** How a key ends the picker: a line picked (its index), or cancelled (Esc, or Ctrl+C: `interrupt`). */
export type PickerEnd = { readonly kind: 'picked'; readonly index: number } | { readonly kind: 'cancelled'; readonly interrupt: boolean };

/** The lines a Page Up or Page Down moves by. */
export const PAGE = 10;

/** Escape sequences of the keys that move, as terminals send them (normal and application cursor mode). */
const SEQUENCES: ReadonlyMap<string, PickerKey['kind']> = new Map([
  ['\x1b[A', 'up'],
  ['\x1bOA', 'up'],
  ['\x1b[B', 'down'],
  ['\x1bOB', 'down'],
  ['\x1b[5~', 'pageUp'],
  ['\x1b[6~', 'pageDown'],
] as const);

/** Control characters the picker knows; any other is ignored. */
const CONTROLS: ReadonlyMap<string, PickerKey['kind']> = new Map([
  ['\r', 'enter'],
  ['\n', 'enter'],
  ['\x03', 'interrupt'],
  ['\x7f', 'backspace'],
  ['\b', 'backspace'],
  ['\x15', 'clear'],
  ['\x10', 'up'],
  ['\x0e', 'down'],
] as const);

/**
 * The keys in a chunk of raw terminal input. An escape sequence the picker does not know (a
 * function key, Alt+letter) is skipped whole; a lone ESC is the Escape key.
 */
export function keysOf(chunk: string): PickerKey[] {
  const keys: PickerKey[] = [];
  let text = '';
  const flush = () => {
    if (text) keys.push({ kind: 'text', text });
    text = '';
  };
  for (let i = 0; i < chunk.length;) {
    const ch = chunk[i]!;
    if (ch === '\x1b') {
      flush();
      // eslint-disable-next-line no-control-regex -- an escape sequence begins with ESC
      const sequence = /^\x1b(?:\[[0-9;?]*[ -/]*[@-~]|O.|.)?/s.exec(chunk.slice(i))![0];
      const kind = SEQUENCES.get(sequence);
      if (sequence === '\x1b') keys.push({ kind: 'escape' });
      else if (kind) keys.push({ kind } as PickerKey);
      i += sequence.length;
      continue;
    }
    const control = CONTROLS.get(ch);
    if (control) {
      flush();
      keys.push({ kind: control } as PickerKey);
    } else if (ch >= ' ') text += ch;
    i++;
  }
  flush();
  return keys;
}

/** The state after `key`, and how it ended the picker if it did. `count(query)` says how many lines a query matches. */
export function pressKey(state: PickerState, key: PickerKey, count: (query: string) => number): { state: PickerState; end?: PickerEnd } {
  const move = (by: number) => ({ state: { ...state, selected: Math.max(0, Math.min(state.count - 1, state.selected + by)) } });
  const query = (text: string) => ({ state: { query: text, count: count(text), selected: 0 } });
  switch (key.kind) {
    case 'up':
      return move(-1);
    case 'down':
      return move(1);
    case 'pageUp':
      return move(-PAGE);
    case 'pageDown':
      return move(PAGE);
    case 'enter':
      // Enter with nothing matching keeps the picker open: the user refines the query or cancels.
      return state.count > 0 ? { state, end: { kind: 'picked', index: state.selected } } : { state };
    case 'escape':
      return { state, end: { kind: 'cancelled', interrupt: false } };
    case 'interrupt':
      return { state, end: { kind: 'cancelled', interrupt: true } };
    case 'backspace':
      return state.query ? query([...state.query].slice(0, -1).join('')) : { state };
    case 'clear':
      return query('');
    case 'text':
      return query(state.query + key.text);
  }
}
