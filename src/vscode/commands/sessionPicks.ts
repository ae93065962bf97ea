// The lines of Open Session's search: a line per matching session, with its first matching turn
// and a snippet, and under it a line for each of a few more of its matching turns; each opens the
// session at its turn. No vscode import: unit tests read these.
import { sessionLabel } from '../../core/format/titles';
import type { SessionRow } from '../../core/index/indexRows';
import type { TurnHit } from '../../core/index/turnSearch';
import type { TurnResult } from '../../core/index/turnSnippet';

/** The matching turns after the first that get a line of their own under their session. */
export const MORE_TURN_LINES = 3;
/** Only the first sessions listed get those lines: each line reads its turn from the log, at every keystroke. */
export const SESSIONS_WITH_TURN_LINES = 10;

/** A line of the search: the session it opens, and the matching turn it opens at (none for the title or a listing). */
export interface SessionPick {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly detail?: string;
  readonly hit?: TurnHit;
}

/**
 * The matching turns a result's lines point at: the title (turn 0) only when no turn matches, as
 * the title is the session's label anyway (and is most often its first prompt, turn 1).
 */
export function matchingTurns(turns: readonly TurnHit[]): TurnHit[] {
  const said = turns.filter((t) => t.turn > 0);
  return said.length > 0 ? said : [...turns];
}

/** How many of a result's matching turns the lines show: the first, and for the first sessions listed a few more. */
export function shownTurns(index: number): number {
  return index < SESSIONS_WITH_TURN_LINES ? 1 + MORE_TURN_LINES : 1;
}

/**
 * The lines of one matching session: the session with its first matching turn and its snippet,
 * then "turn N" and its snippet for each further turn of `results` (the snippets read, first
 * first, of `matching` matching turns in all).
 */
export function resultPicks(row: SessionRow, matching: number, results: readonly TurnResult[]): SessionPick[] {
  const [first, ...more] = results;
  const others = matching > 1 ? ` (+${matching - 1} more)` : '';
  const where = !first ? '' : ` · ${first.turn === 0 ? 'title' : `turn ${first.turn}`}${others}`;
  const session: SessionPick = {
    id: row.id,
    label: sessionLabel(row),
    description: `${turnsAndBranch(row)}${where}`,
    detail: first?.snippet ?? row.firstPrompt,
    ...(first ? { hit: hitOf(first) } : {}),
  };
  return [session, ...more.map((r) => ({ id: row.id, label: `$(arrow-small-right) turn ${r.turn}`, description: r.snippet, hit: hitOf(r) }))];
}

const hitOf = (r: TurnResult): TurnHit => ({ turn: r.turn, start: r.start, end: r.end });

/** A session's turn count and git branch (its last turn's, when it has one): how a session's line of the picker begins. */
export function turnsAndBranch(row: SessionRow): string {
  return row.branch ? `${row.turnCount} turns · ${row.branch}` : `${row.turnCount} turns`;
}
