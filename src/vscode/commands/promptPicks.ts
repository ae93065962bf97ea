// The lines of the quick picks that list prompts: the "which turn" pick of fork and rewind, and
// the prompt history. A prompt can be megabytes; a line shows its start, and only its start is
// read. No vscode import: unit tests read these.
import { firstLine, LINE_LOOK, textStart } from '../../core/format/textStart';
import { cutTitle } from '../../core/format/titles';

/** The characters of a prompt a turn's line shows after "Turn N". */
const TURN_PROMPT_MAX = 120;
/** The units of a prompt's first line a history line shows, and of the prompt its detail shows. */
const HISTORY_LABEL = 200;
const HISTORY_DETAIL = 300;

/** A line of the turn picker: the turn, and its prompt on one line, cut at a word. */
export interface TurnPick<P> {
  readonly label: string;
  readonly description: string;
  readonly prompt: P;
}

/** The turn picker's lines, newest first. */
export function turnPicks<P extends { readonly turn: number; readonly text: string }>(prompts: readonly P[]): TurnPick<P>[] {
  return [...prompts].reverse().map((p) => ({ label: `Turn ${p.turn}`, description: cutTitle(p.text, TURN_PROMPT_MAX), prompt: p }));
}

/** A line of the prompt history: the prompt's first line, and its start when it has more lines. */
export interface HistoryPick {
  readonly label: string;
  readonly detail: string | undefined;
  readonly prompt: string;
}

/** The prompt history's lines, in the order given. */
export function historyPicks(prompts: readonly string[]): HistoryPick[] {
  return prompts.map((p) => ({
    label: textStart(firstLine(p), HISTORY_LABEL),
    // A second line is looked for as far as a first line is.
    detail: textStart(p, LINE_LOOK).includes('\n') ? textStart(p, HISTORY_DETAIL) : undefined,
    prompt: p,
  }));
}
