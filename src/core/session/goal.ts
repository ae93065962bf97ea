import type { TurnMode } from '../wire/turnMode';
import type { UsageTotals } from '../format/sessionState';
import { messageText } from '../format/messageText';
import type { PromptInfo, SessionEvent } from './events';
import type { Session } from './session';
import type { Attachment } from './attachments';

/** The line the model writes, alone, when the goal is met (docs/reference.md, Turns and prompts). */
export const GOAL_DONE = 'GOAL DONE';

/** What a goal run may spend before it stops unfinished. */
export interface GoalBudget {
  /** Turns, the first one included. */
  readonly maxTurns: number;
  /** Tokens of its turns' model calls, sent and received (cache reads and writes included); 0: no limit. */
  readonly maxTokens: number;
}

export const DEFAULT_GOAL_BUDGET: GoalBudget = { maxTurns: 10, maxTokens: 0 };

/** Why a goal run ended: the model said the goal is met, a turn failed, the user stopped it, or its budget is spent. */
export type GoalStop = 'done' | 'failed' | 'stopped' | 'budget';

/** How a goal run ended, and the sentence that says so. */
export interface GoalEnd {
  readonly stop: GoalStop;
  /** Turns it ran. */
  readonly turns: number;
  /** Tokens its turns' calls used. */
  readonly tokens: number;
  readonly message: string;
  /** The prompt of its last turn (the first one when none ran). */
  readonly promptId: string;
}

export interface GoalOptions {
  readonly budget?: GoalBudget;
  readonly mode?: TurnMode;
  /** The first prompt's message key (the chat's request id). */
  readonly messageKey?: string;
  /** What goes with the first prompt (read by the host). */
  readonly attachments?: readonly Attachment[];
  /** Told when the run sends an automatic turn (its number, counting the first). */
  readonly onContinue?: (turn: number) => void;
}

/**
 * "Continue until done": runs turns toward a goal, the goal itself the first prompt. After each
 * completed turn the goal is met when the turn's last answer has a line saying only GOAL DONE;
 * otherwise an automatic prompt asks the model to go on, until a turn fails or is stopped, the
 * user stops the run, or the budget of turns or tokens is spent. `finished` says which.
 */
export class GoalRun {
  readonly finished: Promise<GoalEnd>;
  private readonly budget: GoalBudget;
  private end!: (end: GoalEnd) => void;
  private promptId = '';
  private turns = 0;
  private tokens = 0;
  private usageAtStart: UsageTotals | undefined;
  private lastAnswer = '';
  private stopped = false;
  private over = false;
  private readonly unsubscribe: () => void;

  private constructor(
    private readonly session: Session,
    readonly goal: string,
    private readonly options: GoalOptions,
  ) {
    this.budget = options.budget ?? DEFAULT_GOAL_BUDGET;
    this.finished = new Promise((resolve) => (this.end = resolve));
    this.unsubscribe = session.onEvent((e) => this.onEvent(e));
  }

  /** Submits the goal as the first prompt; the run goes on by itself from there. */
  static async start(session: Session, goal: string, options: GoalOptions = {}): Promise<GoalRun> {
    const run = new GoalRun(session, goal, options);
    await run.send(goal, false, options.messageKey, options.attachments);
    return run;
  }

  /** The prompt the run waits on now. */
  get currentPromptId(): string {
    return this.promptId;
  }

  /** Ends the run: its prompt now (queued or running) is cancelled, and no other is sent. */
  async stop(): Promise<void> {
    if (this.over) return;
    this.stopped = true;
    await this.session.cancel(this.promptId);
    // A prompt already finished (between turns) tells nothing more: the run ends here.
    this.finish('stopped');
  }

  private async send(text: string, auto: boolean, messageKey?: string, attachments?: readonly Attachment[]): Promise<void> {
    const info = await this.session.submit(text, {
      ...(attachments?.length ? { attachments } : {}),
      goal: { auto, reminder: goalReminder(this.goal) },
      ...(this.options.mode ? { mode: this.options.mode } : {}),
      ...(messageKey ? { messageKey } : {}),
    });
    this.promptId = info.promptId;
    this.onPrompt(info); // a prompt refused at once (a key sent before) ends the run now
  }

  private onEvent(event: SessionEvent): void {
    if (event.type === 'prompt') this.onPrompt(event.prompt);
    else if (event.type === 'message' && event.record.message.role === 'assistant' && this.usageAtStart) this.lastAnswer = messageText(event.record.message);
    else if (event.type === 'idle') this.noteIdle();
  }

  /** Idle with the run's prompt neither running nor queued: the session was closed under it (it tells no prompt's end then). */
  private noteIdle(): void {
    if (this.over) return;
    if (!this.session.isClosed && (this.session.isRunning || this.session.queued.some((p) => p.promptId === this.promptId))) return;
    this.finish('stopped', 'the session was closed');
  }

  private onPrompt(prompt: PromptInfo): void {
    if (this.over || prompt.promptId !== this.promptId) return;
    switch (prompt.state) {
      case 'running':
        this.turns++;
        this.usageAtStart = { ...this.session.state.usage };
        this.lastAnswer = '';
        return;
      case 'completed':
        this.countTokens();
        this.afterTurn();
        return;
      case 'failed':
      case 'blocked':
        this.countTokens();
        this.finish('failed', prompt.reason);
        return;
      case 'cancelled':
        this.countTokens();
        this.finish('stopped');
        return;
      default:
        return;
    }
  }

  private countTokens(): void {
    if (!this.usageAtStart) return;
    const a = this.usageAtStart;
    const b = this.session.state.usage;
    this.tokens += b.input - a.input + (b.output - a.output) + (b.cacheRead - a.cacheRead) + (b.cacheWrite - a.cacheWrite);
    this.usageAtStart = undefined;
  }

  /** A completed turn: done, out of budget, or on with an automatic prompt. */
  private afterTurn(): void {
    if (goalMet(this.lastAnswer)) return this.finish('done');
    if (this.stopped) return this.finish('stopped');
    if (this.turns >= this.budget.maxTurns || (this.budget.maxTokens > 0 && this.tokens >= this.budget.maxTokens)) return this.finish('budget');
    this.options.onContinue?.(this.turns + 1);
    this.send(continuePrompt(this.goal), true).catch((err: unknown) => this.finish('failed', err instanceof Error ? err.message : String(err)));
  }

  private finish(stop: GoalStop, reason?: string): void {
    if (this.over) return;
    this.over = true;
    this.unsubscribe();
    this.end({ stop, turns: this.turns, tokens: this.tokens, promptId: this.promptId, message: this.sentence(stop, reason) });
  }

  private sentence(stop: GoalStop, reason: string | undefined): string {
    const spent = `${this.turns} ${this.turns === 1 ? 'turn' : 'turns'}, ${this.tokens.toLocaleString('en-US')} tokens`;
    switch (stop) {
      case 'done':
        return `Goal done: the model says it is met (${spent}).`;
      case 'failed':
        return `Goal stopped: a turn failed${reason ? ` (${reason})` : ''} (${spent}).`;
      case 'stopped':
        return `Goal stopped${reason ? `: ${reason}` : ' by the user'} (${spent}).`;
      case 'budget': {
        const which = this.turns >= this.budget.maxTurns ? `${this.budget.maxTurns} turns` : `${this.budget.maxTokens.toLocaleString('en-US')} tokens`;
        return `Goal not done: its budget of ${which} is spent (${spent}).`;
      }
    }
  }
}

/** Whether an answer says the goal is met: a line of its own saying GOAL DONE (Markdown emphasis and a final period allowed). */
export function goalMet(answer: string): boolean {
  return answer.split('\n').some(
    (line) =>
      line
        .replace(/[*_`#>\s]/g, ' ')
        .trim()
        .replace(/[.!]$/, '') === GOAL_DONE,
  );
}

/** What the model is told with each prompt of the run. */
function goalReminder(goal: string): string {
  return [
    'You are working toward this goal, turn after turn, without the user: Braid sends "Continue toward the goal" until you say it is met.',
    `Goal: ${goal}`,
    `When the goal is fully met (checked, not assumed), or cannot be met without the user, end your answer with a line that says only ${GOAL_DONE} (after saying why, if it cannot be met).`,
    `Do not write that line before.`,
  ].join('\n');
}

/** The automatic prompt of each turn after the first. */
export function continuePrompt(goal: string): string {
  return `Continue toward the goal: ${goal}\n\nWhen it is met, end your answer with a line that says only ${GOAL_DONE}.`;
}
