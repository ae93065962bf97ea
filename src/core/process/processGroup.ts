import type { ChildProcess } from 'node:child_process';

/** Kills a process started with `detached: true` and everything it started (its process group); one already gone is no error. */
export function killProcessGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
