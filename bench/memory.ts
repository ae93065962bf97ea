// Peak resident memory of this process, measure by measure: VmHWM from /proc is this process
// image's own high-water mark (getrusage's maxRSS would also count the parent's memory at fork
// time on Linux), and writing 5 to /proc/self/clear_refs resets it to the current size, so
// several measures in one process each get their own peak.
import fs from 'node:fs';

/** Peak resident memory of this process in MB since it started or since the last resetPeak(). */
export function peakRssMb(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) / 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024;
}

/** Collects garbage (when node runs with --expose-gc) and starts a new peak from the current size. */
export function resetPeak(): void {
  (globalThis as { gc?: () => void }).gc?.();
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux, or not allowed: the peak then counts from the process's start
  }
}

/** Runs `fn` `runs` times; the median ms and the peak memory during the runs. */
export async function timed(runs: number, fn: () => unknown, between?: () => unknown): Promise<{ ms: number; peakMb: number }> {
  resetPeak();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    await between?.(); // off the clock: what follows a run (an index write a window makes 100 ms later)
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, peakMb: peakRssMb() };
}

/** A measure's figures, as a child reports them: a time, its peak memory, and what it found. */
export interface Measured {
  readonly ms: number;
  readonly peakMb?: number;
  readonly detail?: string;
}

/** The figures of one measure kind, by name. */
export type Results = Record<string, Measured>;
