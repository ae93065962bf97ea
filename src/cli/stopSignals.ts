import os from 'node:os';

/** The signals that ask a command to stop: Ctrl-C, and a CI runner's or a process manager's timeout. */
const STOPPING: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/**
 * SIGINT and SIGTERM while a command runs. The first asks it to stop cleanly (the turn ends
 * cancelled, the lease is given back); a second one ends the process at once, as the signal's
 * default action would have.
 */
export class StopSignals {
  /** The first stop signal received, if any. */
  signal: NodeJS.Signals | undefined;
  /** Resolves at the first stop signal. */
  readonly stopped: Promise<NodeJS.Signals>;
  private resolveStopped!: (signal: NodeJS.Signals) => void;
  private readonly handler = (signal: NodeJS.Signals) => this.receive(signal);

  constructor() {
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
    for (const s of STOPPING) process.on(s, this.handler);
  }

  /** The conventional exit code of a process a signal stopped: 128 + its number (130 for SIGINT, 143 for SIGTERM). */
  get exitCode(): number | undefined {
    return this.signal ? 128 + os.constants.signals[this.signal] : undefined;
  }

  dispose(): void {
    for (const s of STOPPING) process.off(s, this.handler);
  }

  private receive(signal: NodeJS.Signals): void {
    if (this.signal) {
      this.dispose();
      process.kill(process.pid, signal); // asked twice: stop now, without cleaning up
      return;
    }
    this.signal = signal;
    this.resolveStopped(signal);
  }
}
