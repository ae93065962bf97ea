import type { PromptInfo, SessionEvent } from '../../core/session/events';
import type { SessionStore } from '../../core/store/sessionStore';
import type { TurnOutcome } from '../../core/wire/records';
import { oneLine } from '../terminalText';
import type { GoalEnd } from '../../core/session/goal';
import { EXIT_GOAL_UNMET } from '../exitCodes';

/** How a turn ended, and whether that was learnt from the log after the fact. */
interface TurnEnd {
  readonly outcome: TurnOutcome;
  readonly error?: string;
  readonly fromLog?: boolean;
  /** The Session told this end, but could not write it. */
  readonly unsaved?: boolean;
}

/** What became of the prompts of one `braid exec`, as the Session told it. */
export class PromptTracker {
  private readonly prompts = new Map<string, PromptInfo>();
  private readonly turns = new Map<string, number>();
  private readonly ends = new Map<number, TurnEnd>();
  /** The reason of the last prompt that failed: what stopped the queue before a later prompt ran. */
  lastFailure: string | undefined;

  note(event: SessionEvent): void {
    if (event.type === 'prompt') {
      this.prompts.set(event.prompt.promptId, event.prompt);
      if (event.prompt.state === 'failed' && event.prompt.reason) this.lastFailure = event.prompt.reason;
    } else if (event.type === 'turn-start') {
      this.turns.set(event.promptId, event.turn);
    } else if (event.type === 'turn-end') {
      this.ends.set(event.turn, { outcome: event.outcome, ...(event.error ? { error: event.error } : {}), ...(event.unsaved ? { unsaved: true } : {}) });
    }
  }

  prompt(promptId: string): PromptInfo | undefined {
    return this.prompts.get(promptId);
  }

  turnOf(promptId: string): number | undefined {
    return this.turns.get(promptId);
  }

  endOf(turn: number): TurnEnd | undefined {
    return this.ends.get(turn);
  }
}

/** The exit code and the one line that says what happened to the prompt. */
export interface Verdict {
  readonly code: number;
  /** What to say on stderr; none when the turn completed as usual. */
  readonly line?: string;
  /** The prompt's turn is in the log for good: a failure after this point loses nothing. */
  readonly durable: boolean;
  /** The prompt's turn began (a session this exec created and that has no turn can go). */
  readonly turnBegan: boolean;
}

/** A turn's end as the log has it, when the Session could not tell (it failed or was closed after writing turn_end). */
function endInLog(store: SessionStore, sessionId: string, turn: number): TurnEnd | undefined {
  try {
    const end = store.history(sessionId).turnEnds.find((t) => t.turn === turn);
    return end ? { outcome: end.outcome, ...(end.error ? { error: end.error } : {}), fromLog: true } : undefined;
  } catch {
    return undefined; // the session's folder is gone: nothing of it is saved
  }
}

/**
 * Judges the prompt of one exec after its session closed. Exit 0 only when its turn ended
 * `completed` and turn_end is in the log; a stop signal gives 128 + its number.
 */
export function judge(options: {
  tracker: PromptTracker;
  promptId: string | undefined;
  store: SessionStore;
  sessionId: string;
  signal?: NodeJS.Signals;
  signalCode?: number;
}): Verdict {
  const { tracker, promptId } = options;
  const stopped = options.signal ? `stopped by ${options.signal}` : undefined;
  const stopCode = options.signalCode ?? 130;
  const info = promptId ? tracker.prompt(promptId) : undefined;
  const reason = oneLine(info?.reason ?? '');
  const turn = promptId ? tracker.turnOf(promptId) : undefined;
  if (turn === undefined) {
    // No turn began, so nothing of this prompt was written.
    if (info?.state === 'blocked') return { code: 1, durable: false, turnBegan: false, line: `the prompt was blocked by the UserPromptSubmit hook: ${reason}` };
    if (stopped) return { code: stopCode, durable: false, turnBegan: false, line: `${stopped} before the prompt ran; nothing was saved` };
    const why = reason || oneLine(tracker.lastFailure ?? '') || 'the session stopped before it';
    return { code: 1, durable: false, turnBegan: false, line: `the prompt did not run (${why}); nothing was saved` };
  }
  const told = tracker.endOf(turn);
  const end = told?.unsaved ? undefined : (told ?? endInLog(options.store, options.sessionId, turn));
  if (!end)
    return {
      code: options.signal ? stopCode : 1,
      durable: false,
      turnBegan: true,
      // A log that failed for good says so itself ("the turn was not saved: …").
      line: told?.error ? oneLine(told.error) : `the turn was not saved: ${reason || stopped || 'its end could not be written'}`,
    };
  // turn_end is in the log, but what follows it (state.json) failed: the Session said why.
  const after = end.fromLog && info?.state === 'failed' && reason ? `; state.json and the index will catch up (${reason})` : '';
  const error = end.error ? `: ${oneLine(end.error)}` : '';
  switch (end.outcome) {
    case 'completed':
      return { code: 0, durable: true, turnBegan: true, ...(after ? { line: `the turn is saved${after}` } : {}) };
    case 'cancelled':
      return { code: stopCode, durable: true, turnBegan: true, line: `${stopped ?? 'stopped'}: the turn was cancelled; what it did so far is saved${after}` };
    default:
      return { code: 1, durable: true, turnBegan: true, line: `the turn ${end.outcome === 'failed' ? 'failed' : 'was interrupted'}${error}${after}` };
  }
}

/**
 * The verdict of a goal run: its last turn's (a failure, a stop, a turn not saved) when that is
 * not a success; otherwise the goal's own end: met (0), or its budget spent first (3). The line
 * always says why the run stopped.
 */
export function judgeGoal(last: Verdict, goal: GoalEnd): Verdict {
  // Stopped between turns: the turns before are saved, the automatic prompt never ran.
  if (!last.turnBegan && goal.turns > 0) return { code: last.code || 1, durable: true, turnBegan: true, line: oneLine(goal.message) };
  if (last.code !== 0) return { ...last, line: `${oneLine(goal.message)} ${last.line ?? ''}`.trim() };
  const code = goal.stop === 'done' ? 0 : goal.stop === 'budget' ? EXIT_GOAL_UNMET : 1;
  return { ...last, code, line: oneLine(goal.message) };
}
