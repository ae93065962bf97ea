/**
 * A picker in the terminal: a query line the user types into, the lines matching it under it,
 * one selected. It reads keys from the terminal in raw mode and draws on the terminal's error
 * stream (stdout stays the command's output), then clears what it drew.
 */
import { keysOf, PAGE, pressKey, type PickerEnd, type PickerState } from './pickerState';
import { oneLine, terminalSafe } from '../terminalText';

/** A terminal: keys come from `input` (a TTY that can go raw), the picker is drawn on `output`. */
export interface Terminal {
  readonly input: NodeJS.ReadStream;
  readonly output: NodeJS.WriteStream;
}

/** A line the user can pick: what it shows, and what picking it gives. */
export interface PickerLine<T> {
  readonly text: string;
  readonly value: T;
}

/** What the picker shows and where its lines come from. */
export interface PickerOptions<T> {
  /** The first line: what is being picked, and the keys. */
  readonly heading: string;
  /** The query typed in already. */
  readonly query: string;
  /** The lines a query matches, best first. */
  readonly find: (query: string) => readonly PickerLine<T>[];
}

/** What the user did: picked a line's value, or cancelled (with Ctrl+C: `interrupt`). */
export type PickerResult<T> = { readonly kind: 'picked'; readonly value: T } | { readonly kind: 'cancelled'; readonly interrupt: boolean };

const CLEAR_TO_END = '\x1b[J';
const INVERSE = '\x1b[7m';
const PLAIN = '\x1b[0m';

/** Runs the picker until the user picks a line or cancels; the terminal is left as it was found. */
export function pickInTerminal<T>(terminal: Terminal, options: PickerOptions<T>): Promise<PickerResult<T>> {
  const { input, output } = terminal;
  let lines = options.find(options.query);
  let state: PickerState = { query: options.query, count: lines.length, selected: 0 };
  let drawn = 0; // lines drawn last time: the cursor is on the last of them
  const count = (query: string) => (lines = options.find(query)).length;
  const draw = () => {
    const frame = pickerFrame(state, lines, options.heading, { columns: output.columns || 80, rows: output.rows || 24 });
    output.write(`${erase(drawn)}${frame.join('\r\n')}`);
    drawn = frame.length;
  };
  return new Promise((resolve) => {
    const finish = (end: PickerEnd) => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.setRawMode(false);
      input.pause();
      output.write(`${erase(drawn)}\x1b[?25h`);
      resolve(end.kind === 'picked' ? { kind: 'picked', value: lines[end.index]!.value } : end);
    };
    const onData = (chunk: string) => {
      for (const key of keysOf(chunk)) {
        const next = pressKey(state, key, count);
        state = next.state;
        if (next.end) return finish(next.end);
      }
      draw();
    };
    const onEnd = () => finish({ kind: 'cancelled', interrupt: false });
    input.setEncoding('utf8');
    input.setRawMode(true);
    input.on('data', onData);
    input.on('end', onEnd);
    input.resume();
    output.write('\x1b[?25l'); // the cursor hidden while the picker is drawn
    draw();
  });
}

/** Moves to the start of the first of `lines` drawn lines and clears from there down. */
function erase(lines: number): string {
  return `\r${lines > 1 ? `\x1b[${lines - 1}A` : ''}${CLEAR_TO_END}`;
}

/**
 * The picker's lines as drawn: the heading, the query, then the matching lines around the
 * selected one (as many as the terminal's height allows, at most a page), each cut to the
 * terminal's width so that none wraps (a wrapped line would throw off the redraw).
 */
export function pickerFrame<T>(state: PickerState, lines: readonly PickerLine<T>[], heading: string, size: { columns: number; rows: number }): string[] {
  const fit = (text: string) => [...terminalSafe(oneLine(text))].slice(0, Math.max(10, size.columns - 1)).join('');
  const room = Math.max(1, Math.min(PAGE, size.rows - 3));
  const first = Math.max(0, Math.min(state.selected - Math.floor(room / 2), lines.length - room));
  const shown = lines.slice(first, first + room).map((line, i) => {
    const text = fit(`${first + i === state.selected ? '> ' : '  '}${line.text}`);
    return first + i === state.selected ? `${INVERSE}${text}${PLAIN}` : text;
  });
  const position = lines.length > room ? ` (${state.selected + 1} of ${lines.length})` : '';
  return [
    fit(`${heading}${position}`),
    fit(`search: ${state.query}`),
    ...(shown.length ? shown : [fit('  (nothing matches; Backspace or Ctrl+U to widen the search)')]),
  ];
}
