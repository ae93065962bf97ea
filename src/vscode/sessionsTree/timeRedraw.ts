// When the Sessions tree redraws its relative times. Kept free of the vscode API so a test can
// run it on a fake clock.

/** The clock a redraw schedule runs on: the real one, or a test's. */
export interface Clock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A redraw comes this long after the moment a time changes, so it never lands just before it. */
const SLACK_MS = 50;

/**
 * Redraws a view at the moment the first of its relative times changes ("just now" becoming
 * "1 min ago"), while it is visible; a view hidden at that moment is redrawn when it shows again.
 * A fixed period would leave each time up to a period late, whatever the period's phase.
 */
export class TimeRedraw {
  private timer: unknown;
  private due: number | undefined;

  constructor(
    private readonly redraw: () => void,
    private readonly visible: () => boolean,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The view now shows times of which the first changes at `at` (none: undefined); a redraw already due sooner stands. */
  expect(at: number | undefined): void {
    if (at === undefined || (this.due !== undefined && this.due <= at)) return;
    this.cancel();
    this.due = at;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = this.due = undefined;
        if (this.visible()) this.redraw();
      },
      Math.max(0, at - this.clock.now()) + SLACK_MS,
    );
  }

  /** The view became visible: its times may have gone stale meanwhile. */
  shown(): void {
    this.redraw();
  }

  cancel(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = this.due = undefined;
  }
}
