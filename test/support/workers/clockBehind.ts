// Preloaded (`node --require clockBehind.cjs`) into a process whose clock must run behind, by
// BRAID_CLOCK_BEHIND_MS: Date.now() and `new Date()` say that much earlier, so what the process
// writes (a session's records, its times) is as old as if written that long ago. A test of times
// that change with age then waits seconds, not the minute that age takes on the real clock.
const behindMs = Number(process.env.BRAID_CLOCK_BEHIND_MS ?? 0);
const RealDate = Date;

globalThis.Date = class extends RealDate {
  constructor(...args: unknown[]) {
    // Any other arguments (a time, a date string, year and month...) are passed on unchanged.
    super(...((args.length === 0 ? [RealDate.now() - behindMs] : args) as [number]));
  }

  static override now(): number {
    return RealDate.now() - behindMs;
  }
} as DateConstructor;
